#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A Java `SimpleDateFormat` pattern (what WireMock's `now format='...'` takes), compiled at
/// load into fields and literals, formatted in English whatever the machine's locale.
package struct JavaDateFormat: Sendable {
    enum Token: Sendable, Equatable {
        case literal(String)
        case field(Character, count: Int)
    }

    let tokens: [Token]

    /// `{{now}}` without a format: ISO 8601 to the second, `Z` for UTC.
    static let iso = try! JavaDateFormat("yyyy-MM-dd'T'HH:mm:ssXXX")

    static let letters: Set<Character> = ["G", "y", "Y", "M", "L", "d", "D", "E", "u", "a", "H", "k", "K", "h", "m", "s", "S", "z", "Z", "X", "w", "W", "F"]

    init(_ pattern: String) throws(HandlebarsHelperError) {
        var tokens: [Token] = []
        let chars = Array(pattern)
        var i = 0
        var literal = ""
        func flush() { if !literal.isEmpty { tokens.append(.literal(literal)); literal = "" } }
        while i < chars.count {
            let c = chars[i]
            if c == "'" {
                if i + 1 < chars.count, chars[i + 1] == "'" { literal.append("'"); i += 2; continue }
                guard let close = chars[(i + 1)...].firstIndex(of: "'") else {
                    throw HandlebarsHelperError(message: "a quote in the date format is not closed")
                }
                literal += String(chars[(i + 1)..<close])
                i = close + 1
                continue
            }
            if c.isASCII, c.isLetter {
                guard Self.letters.contains(c) else {
                    throw HandlebarsHelperError(message: "'\(c)' is not a date format letter (quote text in '...')")
                }
                flush()
                var count = 1
                while i + count < chars.count, chars[i + count] == c { count += 1 }
                tokens.append(.field(c, count: min(count, 12)))
                i += count
                continue
            }
            literal.append(c)
            i += 1
        }
        flush()
        self.tokens = tokens
    }

    private static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
    private static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    package func format(_ date: Date, in timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.minimumDaysInFirstWeek = 1
        let c = calendar.dateComponents([.era, .year, .yearForWeekOfYear, .month, .day, .hour, .minute, .second, .nanosecond,
                                         .weekday, .weekOfYear, .weekOfMonth, .weekdayOrdinal], from: date)
        let dayOfYear = calendar.ordinality(of: .day, in: .year, for: date) ?? 0
        let offsetSeconds = timeZone.secondsFromGMT(for: date)
        var out = ""
        for token in tokens {
            guard case .field(let letter, let n) = token else {
                if case .literal(let s) = token { out += s }
                continue
            }
            let hour = c.hour ?? 0
            switch letter {
            case "G": out += (c.era ?? 1) == 1 ? "AD" : "BC"
            case "y", "Y":
                let year = (letter == "y" ? c.year : c.yearForWeekOfYear) ?? 0
                out += n == 2 ? Self.pad(year % 100, 2) : Self.pad(year, n)
            case "M", "L":
                let month = c.month ?? 1
                out += n >= 4 ? Self.months[month - 1] : n == 3 ? String(Self.months[month - 1].prefix(3)) : Self.pad(month, n)
            case "d": out += Self.pad(c.day ?? 0, n)
            case "D": out += Self.pad(dayOfYear, n)
            case "E":
                let name = Self.weekdays[(c.weekday ?? 1) - 1]
                out += n >= 4 ? name : String(name.prefix(3))
            case "u": out += Self.pad((c.weekday ?? 1) == 1 ? 7 : (c.weekday ?? 1) - 1, n)
            case "a": out += hour < 12 ? "AM" : "PM"
            case "H": out += Self.pad(hour, n)
            case "k": out += Self.pad(hour == 0 ? 24 : hour, n)
            case "K": out += Self.pad(hour % 12, n)
            case "h": out += Self.pad(hour % 12 == 0 ? 12 : hour % 12, n)
            case "m": out += Self.pad(c.minute ?? 0, n)
            case "s": out += Self.pad(c.second ?? 0, n)
            case "S": out += Self.pad((c.nanosecond ?? 0) / 1_000_000, max(n, 1))
            case "w": out += Self.pad(c.weekOfYear ?? 0, n)
            case "W": out += Self.pad(c.weekOfMonth ?? 0, n)
            case "F": out += Self.pad(c.weekdayOrdinal ?? 0, n)
            case "z": out += n >= 4 ? timeZone.identifier : (timeZone.abbreviation(for: date) ?? "GMT")
            case "Z": out += Self.offset(offsetSeconds, colon: false)
            case "X":
                if offsetSeconds == 0 { out += "Z" }
                else if n == 1 { out += String(Self.offset(offsetSeconds, colon: false).prefix(3)) }
                else { out += Self.offset(offsetSeconds, colon: n >= 3) }
            default: break
            }
        }
        return out
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(abs(value))
        let padded = digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        return value < 0 ? "-" + padded : padded
    }

    private static func offset(_ seconds: Int, colon: Bool) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        return sign + pad(minutes / 60, 2) + (colon ? ":" : "") + pad(minutes % 60, 2)
    }
}
