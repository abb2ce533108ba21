/// Captured requests (the recorder's exchanges, a HAR archive's entries) grouped the way stub
/// files are written from them: one file per method and path, in order of first capture; in it,
/// one group per set of conditions (`conditionKey`), and in a group one variant per request
/// body, each with its captures in order.
package struct CaptureFile<Item, Body: Equatable> {
    package struct ConditionGroup {
        package let key: String
        package var variants: [(body: Body, items: [Item])] = []
    }

    package let method: String
    package let path: String
    package var groups: [ConditionGroup] = []

    /// The file's name before its extension: `get-users-id`, `get-root` for `/`.
    package var slug: String {
        path == "/"
            ? "\(method.lowercased())-root"
            : FileNameAllocator.slug("\(method) \(path)", fallback: method.lowercased())
    }

    package static func group(
        _ items: [Item],
        method: (Item) -> String,
        path: (Item) -> String,
        conditionKey: (Item) -> String,
        body: (Item) -> Body
    ) -> [CaptureFile] {
        var files: [CaptureFile] = []
        var fileIndex: [String: Int] = [:]
        for item in items {
            let fileKey = "\(method(item)) \(path(item))"
            let f =
                fileIndex[fileKey]
                ?? {
                    files.append(CaptureFile(method: method(item), path: path(item)))
                    fileIndex[fileKey] = files.count - 1
                    return files.count - 1
                }()
            let key = conditionKey(item)
            let g =
                files[f].groups.firstIndex { $0.key == key }
                ?? {
                    files[f].groups.append(ConditionGroup(key: key))
                    return files[f].groups.count - 1
                }()
            let itemBody = body(item)
            if let v = files[f].groups[g].variants.firstIndex(where: { $0.body == itemBody }) {
                files[f].groups[g].variants[v].items.append(item)
            } else {
                files[f].groups[g].variants.append((itemBody, [item]))
            }
        }
        return files
    }
}

/// `/search?q=swift`, shortened for a stub name.
package func captureTarget(path: String, query: [(name: String, value: String)]) -> String {
    var text = path
    if !query.isEmpty { text += "?" + query.map { "\($0.name)=\($0.value)" }.joined(separator: "&") }
    return text.count > 120 ? String(text.prefix(117)) + "..." : text
}
