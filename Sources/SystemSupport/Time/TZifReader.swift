/// A zone file that is not a TZif file, or is cut short or inconsistent.
package struct ZoneError: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// Reads the binary zone files of the system's time-zone database (RFC 8536, versions 1 to 4):
/// the 64-bit table of version 2 and later (the 32-bit one of version 1 files), and the POSIX
/// rule of the footer for instants past the table. Leap-second records are skipped: Unix time
/// does not count them.
package enum TZifReader {
    package static func read(_ bytes: [UInt8], identifier: String) throws(ZoneError) -> ZoneRules {
        var cursor = Cursor(bytes: bytes)
        let first = try cursor.header()
        guard first.version >= 2 else {
            return try rules(cursor.block(first, timeSize: 4), footer: nil, identifier: identifier)
        }
        try cursor.skip(first.blockSize(timeSize: 4))
        let second = try cursor.header()
        let block = try cursor.block(second, timeSize: 8)
        guard try cursor.byte() == UInt8(ascii: "\n") else {
            throw ZoneError("the footer does not start with a newline")
        }
        var footer: [UInt8] = []
        while true {
            let byte = try cursor.byte()
            if byte == UInt8(ascii: "\n") { break }
            footer.append(byte)
        }
        let text = String(decoding: footer, as: UTF8.self)
        guard text.isEmpty || POSIXZoneRuleReader.read(text) != nil else {
            throw ZoneError("the footer \"\(text)\" is not a POSIX TZ rule")
        }
        return try rules(block, footer: text.isEmpty ? nil : POSIXZoneRuleReader.read(text), identifier: identifier)
    }

    struct Header {
        let version: Int
        let utIndicators: Int
        let standardIndicators: Int
        let leapCount: Int
        let transitionCount: Int
        let typeCount: Int
        let characterCount: Int

        func blockSize(timeSize: Int) -> Int {
            transitionCount * (timeSize + 1) + typeCount * 6 + characterCount + leapCount * (timeSize + 4)
                + standardIndicators + utIndicators
        }
    }

    struct Block {
        let transitions: [Int]
        let typeIndices: [Int]
        let types: [ZoneOffset]
    }

    private static func rules(_ block: Block, footer: POSIXZoneRule?, identifier: String) throws(ZoneError) -> ZoneRules
    {
        for i in block.transitions.indices.dropFirst() where block.transitions[i] <= block.transitions[i - 1] {
            throw ZoneError("transition \(i) is not later than the one before it")
        }
        return ZoneRules(
            identifier: identifier,
            transitions: block.transitions,
            transitionOffsets: block.typeIndices.map { block.types[$0] },
            initialOffset: block.types[0],
            rule: footer
        )
    }

    struct Cursor {
        let bytes: [UInt8]
        var position = 0

        mutating func byte() throws(ZoneError) -> UInt8 {
            guard position < bytes.count else { throw ZoneError("the file ends early (at byte \(position))") }
            position += 1
            return bytes[position - 1]
        }

        mutating func skip(_ count: Int) throws(ZoneError) {
            guard count <= bytes.count - position else {
                throw ZoneError("the file ends early (at byte \(bytes.count))")
            }
            position += count
        }

        mutating func integer(size: Int) throws(ZoneError) -> Int {
            try skip(size)
            var value: UInt64 = 0
            for byte in bytes[(position - size)..<position] { value = value << 8 | UInt64(byte) }
            // Two's complement of the field's width.
            return size == 8 ? Int(Int64(bitPattern: value)) : Int(Int32(bitPattern: UInt32(value)))
        }

        mutating func header() throws(ZoneError) -> Header {
            let start = position
            guard bytes.count - position >= 44, Array(bytes[position..<position + 4]) == Array("TZif".utf8) else {
                throw ZoneError("not a TZif file (no \"TZif\" at byte \(start))")
            }
            position += 4
            let versionByte = try byte()
            let version: Int
            switch versionByte {
            case 0: version = 1
            case UInt8(ascii: "2")...UInt8(ascii: "4"): version = Int(versionByte - UInt8(ascii: "0"))
            default: throw ZoneError("unknown TZif version byte \(versionByte)")
            }
            try skip(15)
            var counts: [Int] = []
            for _ in 0..<6 {
                let count = try integer(size: 4)
                guard count >= 0, count <= 1 << 20 else {
                    throw ZoneError("a count in the header is out of range (\(count))")
                }
                counts.append(count)
            }
            let header = Header(
                version: version,
                utIndicators: counts[0],
                standardIndicators: counts[1],
                leapCount: counts[2],
                transitionCount: counts[3],
                typeCount: counts[4],
                characterCount: counts[5]
            )
            guard header.typeCount >= 1, header.characterCount >= 1 else {
                throw ZoneError("the file has no local time type")
            }
            guard header.utIndicators == 0 || header.utIndicators == header.typeCount,
                header.standardIndicators == 0 || header.standardIndicators == header.typeCount
            else {
                throw ZoneError("the indicator counts do not match the type count")
            }
            return header
        }

        mutating func block(_ header: Header, timeSize: Int) throws(ZoneError) -> Block {
            guard header.blockSize(timeSize: timeSize) <= bytes.count - position else {
                throw ZoneError("the file ends early (its header announces \(header.transitionCount) transitions)")
            }
            var transitions: [Int] = []
            for _ in 0..<header.transitionCount { transitions.append(try integer(size: timeSize)) }
            var indices: [Int] = []
            for _ in 0..<header.transitionCount {
                let index = Int(try byte())
                guard index < header.typeCount else {
                    throw ZoneError("a transition names type \(index) of \(header.typeCount)")
                }
                indices.append(index)
            }
            var raw: [(seconds: Int, isDST: Bool, nameIndex: Int)] = []
            for _ in 0..<header.typeCount {
                let seconds = try integer(size: 4)
                let isDST = try byte()
                let nameIndex = Int(try byte())
                guard seconds > -25 * 3600, seconds < 26 * 3600, isDST <= 1, nameIndex < header.characterCount else {
                    throw ZoneError("local time type \(raw.count) is out of range")
                }
                raw.append((seconds, isDST == 1, nameIndex))
            }
            let names = Array(bytes[position..<position + header.characterCount])
            try skip(header.characterCount)
            try skip(header.leapCount * (timeSize + 4) + header.standardIndicators + header.utIndicators)
            let types = raw.map { type in
                let end = names[type.nameIndex...].firstIndex(of: 0) ?? names.count
                return ZoneOffset(
                    seconds: type.seconds,
                    isDaylightSaving: type.isDST,
                    abbreviation: String(decoding: names[type.nameIndex..<end], as: UTF8.self)
                )
            }
            return Block(transitions: transitions, typeIndices: indices, types: types)
        }
    }
}
