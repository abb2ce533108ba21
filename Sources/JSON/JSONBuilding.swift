/// Building JSON in code, for admin API answers and journal entries.
extension JSONNode {
    package static func object(_ members: [(String, JSONNode)]) -> JSONNode {
        JSONNode(
            .object(
                members.map { JSONNode.Member(key: $0.0, keyPosition: SourcePosition(line: 0, column: 0), value: $0.1) }
            )
        )
    }

    package static func array(_ elements: [JSONNode]) -> JSONNode { JSONNode(.array(elements)) }
    package static func string(_ s: String) -> JSONNode { JSONNode(.string(s)) }
    package static func bool(_ b: Bool) -> JSONNode { JSONNode(.bool(b)) }
    package static let null = JSONNode(.null)

    package static func number(_ n: Int) -> JSONNode {
        JSONNode(.number(JSONNumber(text: String(n), value: Double(n))))
    }

    package static func number(_ d: Double, decimals: Int) -> JSONNode {
        var text = String(d.rounded(toPlaces: decimals))
        if text.hasSuffix(".0") { text.removeLast(2) }
        return JSONNode(.number(JSONNumber(text: text, value: d)))
    }
}

extension Double {
    fileprivate func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
