/// Indented JSON for files people read and diff: two spaces, one member per line, short arrays
/// of scalars on one line, member order and numbers exactly as in the node. Deterministic: the
/// same node always gives the same bytes.
package enum JSONPrettyPrinter {
    /// Arrays of scalars up to this width stay on one line (`"method": ["GET", "HEAD"]`).
    static let inlineWidth = 80

    package static func bytes(_ node: JSONNode) -> [UInt8] {
        var out: [UInt8] = []
        write(node, indent: 0, into: &out)
        out.append(0x0A)
        return out
    }

    private static func write(_ node: JSONNode, indent: Int, into out: inout [UInt8]) {
        switch node.value {
        case .array(let elements):
            if elements.isEmpty {
                out += Array("[]".utf8)
                return
            }
            if let inline = inlineScalars(elements) {
                out += inline
                return
            }
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                out += i == 0 ? [0x0A] : Array(",\n".utf8)
                pad(indent + 1, &out)
                write(element, indent: indent + 1, into: &out)
            }
            out.append(0x0A)
            pad(indent, &out)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty {
                out += Array("{}".utf8)
                return
            }
            writeMembers(members, level: indent, separator: ": ", into: &out) { value, level, out in
                write(value, indent: level, into: &out)
            }
        default:
            JSONSerializer.write(node, into: &out)
        }
    }

    private static func inlineScalars(_ elements: [JSONNode]) -> [UInt8]? {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (i, element) in elements.enumerated() {
            switch element.value {
            case .array, .object: return nil
            default: break
            }
            if i > 0 { out += Array(", ".utf8) }
            JSONSerializer.write(element, into: &out)
            if out.count > inlineWidth { return nil }
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// The object layout both printers share: `{`, one member a line a level deeper (`key`,
    /// the separator, the value as `value` writes it at that level), `}` back at `level`.
    private static func writeMembers(
        _ members: [JSONNode.Member],
        level: Int,
        separator: String,
        into out: inout [UInt8],
        value: (JSONNode, Int, inout [UInt8]) -> Void
    ) {
        out.append(UInt8(ascii: "{"))
        for (i, member) in members.enumerated() {
            out += i == 0 ? [0x0A] : Array(",\n".utf8)
            pad(level + 1, &out)
            JSONSerializer.writeString(member.key, into: &out)
            out += Array(separator.utf8)
            value(member.value, level + 1, &out)
        }
        out.append(0x0A)
        pad(level, &out)
        out.append(UInt8(ascii: "}"))
    }

    private static func pad(_ level: Int, _ out: inout [UInt8]) {
        out += [UInt8](repeating: 0x20, count: level * 2)
    }
}

extension JSONPrettyPrinter {
    /// Jackson's default pretty printer, which WireMock's `formatJson` and `toJson` write:
    /// objects one member a line (`"key" : value`, two spaces a level), arrays on one line
    /// (`[ 1, 2 ]`, their objects indented from the enclosing object), `{ }` and `[ ]` when empty.
    package static func jacksonString(_ node: JSONNode) -> String {
        var out: [UInt8] = []
        writeJackson(node, level: 0, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func writeJackson(_ node: JSONNode, level: Int, into out: inout [UInt8]) {
        switch node.value {
        case .array(let elements):
            if elements.isEmpty {
                out += Array("[ ]".utf8)
                return
            }
            out += Array("[ ".utf8)
            for (i, element) in elements.enumerated() {
                if i > 0 { out += Array(", ".utf8) }
                writeJackson(element, level: level, into: &out)
            }
            out += Array(" ]".utf8)
        case .object(let members):
            if members.isEmpty {
                out += Array("{ }".utf8)
                return
            }
            writeMembers(members, level: level, separator: " : ", into: &out) { value, level, out in
                writeJackson(value, level: level, into: &out)
            }
        default:
            JSONSerializer.write(node, into: &out)
        }
    }
}
