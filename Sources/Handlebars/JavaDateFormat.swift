import SystemSupport

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

    static let letters: Set<Character> = [
        "G", "y", "Y", "M", "L", "d", "D", "E", "u", "a", "H", "k", "K", "h", "m", "s", "S", "z", "Z", "X", "w", "W",
        "F",
    ]

    init(_ pattern: String) throws(HandlebarsHelperError) {
        var tokens: [Token] = []
        let chars = Array(pattern)
        var i = 0
        var literal = ""
        func flush() {
            if !literal.isEmpty {
                tokens.append(.literal(literal))
                literal = ""
            }
        }
        while i < chars.count {
            let c = chars[i]
            if c == "'" {
                if i + 1 < chars.count, chars[i + 1] == "'" {
                    literal.append("'")
                    i += 2
                    continue
                }
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

    /// The text of an instant (milliseconds since the Unix epoch) on `zone`'s clock, as
    /// `SimpleDateFormat` writes it in an English locale: weeks start on Sunday, and the week
    /// holding January 1 is week 1.
    package func format(epochMilliseconds: Int, in zone: ZoneRules) -> String {
        let (seconds, millisecond) = CivilCalendar.floorDivide(epochMilliseconds, 1000)
        let offset = zone.offset(atEpochSeconds: seconds)
        let t = CivilDateTime(localSeconds: seconds + offset.seconds, nanosecond: millisecond * 1_000_000)
        var out = ""
        for token in tokens {
            switch token {
            case .literal(let text): out += text
            case .field(let letter, let count): out += Self.field(letter, count, t, offset)
            }
        }
        return out
    }

    private static func field(_ letter: Character, _ n: Int, _ t: CivilDateTime, _ offset: ZoneOffset) -> String {
        // Years before 1 AD are counted down from 1 BC, as in Java's Gregorian calendar.
        let yearOfEra = t.year > 0 ? t.year : 1 - t.year
        switch letter {
        case "G": return t.year > 0 ? "AD" : "BC"
        case "y": return n == 2 ? pad(yearOfEra % 100, 2) : pad(yearOfEra, n)
        case "Y":
            let weekYear = Self.week(t).year
            return n == 2 ? pad(weekYear % 100, 2) : pad(weekYear, n)
        case "M", "L":
            return n >= 4
                ? DateText.monthNames[t.month - 1] : n == 3 ? String(DateText.shortMonthName(t.month)) : pad(t.month, n)
        case "d": return pad(t.day, n)
        case "D": return pad(t.dayOfYear, n)
        case "E":
            let name = DateText.weekdayNames[t.weekday]
            return n >= 4 ? name : String(name.prefix(3))
        case "u": return pad(t.weekday, n)
        case "a": return t.hour < 12 ? "AM" : "PM"
        case "H": return pad(t.hour, n)
        case "k": return pad(t.hour == 0 ? 24 : t.hour, n)
        case "K": return pad(t.hour % 12, n)
        case "h": return pad(t.hour % 12 == 0 ? 12 : t.hour % 12, n)
        case "m": return pad(t.minute, n)
        case "s": return pad(t.second, n)
        case "S": return pad(t.nanosecond / 1_000_000, n)
        case "w": return pad(Self.week(t).week, n)
        case "W":
            let firstOfMonth = CivilCalendar.dayNumber(year: t.year, month: t.month, day: 1)
            return pad((t.day - 1 + CivilCalendar.weekday(dayNumber: firstOfMonth) % 7) / 7 + 1, n)
        case "F": return pad((t.day - 1) / 7 + 1, n)
        case "z": return Self.zoneName(offset)
        case "Z": return Self.offset(offset.seconds, colon: false)
        case "X":
            if offset.seconds == 0 { return "Z" }
            if n == 1 { return String(Self.offset(offset.seconds, colon: false).prefix(3)) }
            return Self.offset(offset.seconds, colon: n >= 3)
        default: return ""
        }
    }

    /// The week of the year and its year: weeks start on Sunday, and the week holding
    /// January 1 is week 1 (so the last days of December can be week 1 of the next year).
    private static func week(_ t: CivilDateTime) -> (year: Int, week: Int) {
        func weekStart(_ day: Int) -> Int { day - CivilCalendar.weekday(dayNumber: day) % 7 }
        let day = t.dayNumber
        let nextYearsFirstWeek = weekStart(CivilCalendar.dayNumber(year: t.year + 1, month: 1, day: 1))
        if day >= nextYearsFirstWeek { return (t.year + 1, 1) }
        return (t.year, (day - weekStart(CivilCalendar.dayNumber(year: t.year, month: 1, day: 1))) / 7 + 1)
    }

    /// `z`: the zone's abbreviation, or `GMT+03:00` where the database has only numbers (`+03`).
    private static func zoneName(_ offset: ZoneOffset) -> String {
        let name = offset.abbreviation
        guard name.isEmpty || name.first == "+" || name.first == "-" else { return name }
        return offset.seconds == 0 ? "GMT" : "GMT" + Self.offset(offset.seconds, colon: true)
    }

    private static func pad(_ value: Int, _ width: Int) -> String { DateText.zeroPadded(value, width: width) }

    private static func offset(_ seconds: Int, colon: Bool) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        return sign + pad(minutes / 60, 2) + (colon ? ":" : "") + pad(minutes % 60, 2)
    }
}
