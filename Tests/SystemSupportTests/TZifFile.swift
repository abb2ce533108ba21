/// Writes small TZif files (RFC 8536) for the reader's tests: version 1 (32-bit table only) or
/// version 2 and later (an empty 32-bit table, the 64-bit one, a footer).
struct TZifFile {
    struct LocalType {
        var seconds: Int
        var isDST: Bool
        var name: String
    }

    var version: UInt8 = UInt8(ascii: "2")
    var transitions: [(at: Int, type: Int)] = []
    var types: [LocalType]
    var footer = ""

    var bytes: [UInt8] {
        var names: [UInt8] = []
        var nameIndex: [Int] = []
        for type in types {
            nameIndex.append(names.count)
            names += Array(type.name.utf8) + [0]
        }
        func header(_ version: UInt8, transitions: Int, types: Int, characters: Int) -> [UInt8] {
            var out = Array("TZif".utf8) + [version] + [UInt8](repeating: 0, count: 15)
            for count in [0, 0, 0, transitions, types, characters] { out += be(count, 4) }
            return out
        }
        func block(timeSize: Int) -> [UInt8] {
            var out: [UInt8] = []
            for transition in transitions { out += be(transition.at, timeSize) }
            for transition in transitions { out.append(UInt8(transition.type)) }
            for (i, type) in types.enumerated() {
                out += be(type.seconds, 4) + [type.isDST ? 1 : 0, UInt8(nameIndex[i])]
            }
            return out + names
        }
        if version == 0 {
            return header(0, transitions: transitions.count, types: types.count, characters: names.count)
                + block(timeSize: 4)
        }
        let empty = header(version, transitions: 0, types: 1, characters: 1) + [0, 0, 0, 0, 0, 0, 0]
        return empty + header(version, transitions: transitions.count, types: types.count, characters: names.count)
            + block(timeSize: 8) + Array("\n\(footer)\n".utf8)
    }

    private func be(_ value: Int, _ size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}
