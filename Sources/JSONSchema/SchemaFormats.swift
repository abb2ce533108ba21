#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `format` checked loosely: the formats APIs use most, each with the shape a client would
/// choke on when it is wrong (a date that is not a date, an id that is not a UUID). Unknown
/// formats, and the finer points of each RFC, are not checked: a false alarm in a stub check
/// costs more than a missed corner. Each check returns what is wrong, or nil.
package enum SchemaFormats {
    /// The formats `check` knows; a schema compiles only these (any other checks nothing).
    static let checked: Set<String> = [
        "date-time", "date", "time", "email", "idn-email", "uuid", "ipv4", "ipv6", "uri", "url", "iri", "hostname",
        "idn-hostname", "int32", "int64",
    ]

    static func isChecked(_ format: String) -> Bool { checked.contains(format) }

    package static func check(string s: String, format: String) -> String? {
        switch format {
        case "date-time":
            return isDateTime(s) ? nil : "is not a date-time (RFC 3339, such as 2024-01-31T09:30:00Z)"
        case "date":
            return isDate(Substring(s)) ? nil : "is not a date (RFC 3339 full-date, such as 2024-01-31)"
        case "time":
            return isTime(Substring(s), offsetRequired: false) ? nil : "is not a time (such as 09:30:00Z)"
        case "email", "idn-email":
            return isEmail(s) ? nil : "is not an email address"
        case "uuid":
            return isUUID(s) ? nil : "is not a UUID (8-4-4-4-12 hexadecimal digits)"
        case "ipv4":
            return isIPv4(Substring(s)) ? nil : "is not an IPv4 address"
        case "ipv6":
            return isIPv6(s) ? nil : "is not an IPv6 address"
        case "uri", "url", "iri":
            return isAbsoluteURI(s) ? nil : "is not an absolute URI (such as https://example.com/a)"
        case "hostname", "idn-hostname":
            return isHostname(s) ? nil : "is not a host name"
        default:
            return nil
        }
    }

    /// OpenAPI's integer formats: `int32` and `int64` are whole numbers in their ranges.
    package static func check(number n: Double, format: String) -> String? {
        switch format {
        case "int32":
            return n.rounded() == n && n >= -2_147_483_648 && n <= 2_147_483_647
                ? nil : "is not an int32 (a whole number from -2147483648 to 2147483647)"
        case "int64":
            return n.rounded() == n && n >= -9.223372036854775808e18 && n <= 9.223372036854775807e18
                ? nil : "is not an int64 (a whole number within 64 bits)"
        default:
            return nil
        }
    }

    private static func digits(_ s: Substring, _ count: Int) -> Int? {
        guard s.count == count, s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(s)
    }

    static func isDate(_ s: Substring) -> Bool {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, digits(parts[0], 4) != nil, let month = digits(parts[1], 2),
            let day = digits(parts[2], 2)
        else { return false }
        return (1...12).contains(month) && (1...31).contains(day)
    }

    static func isTime(_ s: Substring, offsetRequired: Bool) -> Bool {
        var body = s
        var hasOffset = false
        if body.last == "Z" || body.last == "z" {
            body = body.dropLast()
            hasOffset = true
        } else if let sign = body.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let offset = body[body.index(after: sign)...].split(separator: ":", omittingEmptySubsequences: false)
            guard offset.count == 2, let h = digits(offset[0], 2), let m = digits(offset[1], 2), h < 24, m < 60 else {
                return false
            }
            body = body[..<sign]
            hasOffset = true
        }
        guard hasOffset || !offsetRequired else { return false }
        if let dot = body.firstIndex(of: ".") {
            let fraction = body[body.index(after: dot)...]
            guard !fraction.isEmpty, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
            body = body[..<dot]
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let h = digits(parts[0], 2), let m = digits(parts[1], 2), let sec = digits(parts[2], 2)
        else { return false }
        return h < 24 && m < 60 && sec <= 60
    }

    static func isDateTime(_ s: String) -> Bool {
        guard let t = s.firstIndex(where: { $0 == "T" || $0 == "t" || $0 == " " }) else { return false }
        return isDate(s[..<t]) && isTime(s[s.index(after: t)...], offsetRequired: true)
    }

    static func isEmail(_ s: String) -> Bool {
        let parts = s.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && !s.contains(where: \.isWhitespace)
    }

    static func isUUID(_ s: String) -> Bool {
        let groups = s.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }

    static func isIPv4(_ s: Substring) -> Bool {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(part)
                else { return false }
                return n <= 255 && (part.count == 1 || part.first != "0")
            }
    }

    static func isIPv6(_ s: String) -> Bool {
        var text = Substring(s)
        var groupsAllowed = 8
        if let lastColon = text.lastIndex(of: ":"), text[text.index(after: lastColon)...].contains(".") {
            guard isIPv4(text[text.index(after: lastColon)...]) else { return false }
            text = text[...lastColon]
            if text.hasSuffix(":") && !text.hasSuffix("::") { text = text.dropLast() }
            groupsAllowed = 6
        }
        let halves = text.split(separator: "::", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return false }
        let groups = halves.flatMap {
            $0.isEmpty ? [] : $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        }
        guard groups.allSatisfy({ (1...4).contains($0.count) && $0.allSatisfy(\.isHexDigit) }) else { return false }
        return halves.count == 2 ? groups.count < groupsAllowed : groups.count == groupsAllowed
    }

    static func isAbsoluteURI(_ s: String) -> Bool {
        guard let colon = s.firstIndex(of: ":"), let first = s.first, first.isASCII, first.isLetter else {
            return false
        }
        let scheme = s[..<colon]
        return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }
            && !s.contains(where: { $0 == " " || $0 == "\n" || $0 == "\t" })
    }

    static func isHostname(_ s: String) -> Bool {
        let name = s.hasSuffix(".") ? String(s.dropLast()) : s
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                && label.allSatisfy { ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }
}
