/// Objects with a key written twice, read as Jackson (Java) and JavaScript's `JSON.parse` read
/// them: the last value wins, at the place of the first. The parser keeps every member, so that
/// a strict reader can refuse the second one with its position; a lenient reader calls this.
extension JSONNode {
    /// A repeated key, where it is repeated.
    package struct DuplicateKey: Sendable, Equatable {
        package let key: String
        package let position: SourcePosition
        /// The JSON path of the object that holds it (`$.response.jsonBody`).
        package let objectPath: String
    }

    /// This node with every object's repeated keys merged (last value, first place), and the
    /// repeats it merged; nested objects and arrays are merged too.
    package func mergingDuplicateKeys(path: String = "$") -> (node: JSONNode, duplicates: [DuplicateKey]) {
        var duplicates: [DuplicateKey] = []
        let merged = merged(path, &duplicates)
        return (merged, duplicates)
    }

    private func merged(_ path: String, _ duplicates: inout [DuplicateKey]) -> JSONNode {
        switch value {
        case .array(let elements):
            let mergedElements = elements.enumerated().map { $0.element.merged("\(path)[\($0.offset)]", &duplicates) }
            return JSONNode(.array(mergedElements), at: position)
        case .object(let members):
            var order: [String] = []
            var byKey: [String: Member] = [:]
            for member in members {
                let value = member.value.merged("\(path).\(member.key)", &duplicates)
                if let first = byKey[member.key] {
                    duplicates.append(DuplicateKey(key: member.key, position: member.keyPosition, objectPath: path))
                    byKey[member.key] = Member(key: member.key, keyPosition: first.keyPosition, value: value)
                } else {
                    order.append(member.key)
                    byKey[member.key] = Member(key: member.key, keyPosition: member.keyPosition, value: value)
                }
            }
            return JSONNode(.object(order.compactMap { byKey[$0] }), at: position)
        default:
            return self
        }
    }
}
