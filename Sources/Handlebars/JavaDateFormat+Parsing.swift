#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

/// Reading dates with a `SimpleDateFormat` pattern (`parseDate format='dd/MM/yyyy'`) and in
/// ISO 8601. Strict where Java is lenient: a day 32 or a month 13 is no date rather than a
/// date in the next month.
extension JavaDateFormat {
    /// Epoch milliseconds of `text` read with this pattern; times without a zone in the text are
    /// on `zone`'s clock. nil when the text does not follow the pattern (all of it).
    func parse(_ text: String, zone: ZoneRules) -> Int? {
        var reader = DateTextReader(Array(text))
        var fields = ParsedFields()
        for (index, token) in tokens.enumerated() {
            switch token {
            case .literal(let literal):
                guard reader.accept(literal) else { return nil }
            case .field(let letter, let count):
                // A number followed directly by another field has exactly its pattern's width.
                var nextIsField = false
                if index + 1 < tokens.count, case .field = tokens[index + 1] { nextIsField = true }
                guard reader.read(letter, count, abutting: nextIsField, into: &fields) else { return nil }
            }
        }
        guard reader.atEnd else { return nil }
        return fields.epochMilliseconds(zone: zone)
    }

    /// `2021-06-15`, `2021-06-15T15:16:17Z`, `2021-06-15T15:16:17.123+02:00`, and without a zone
    /// (then on `zone`'s clock).
    package static func parseISO8601(_ text: String, zone: ZoneRules) -> Int? {
        var reader = DateTextReader(Array(text))
        var fields = ParsedFields()
        guard reader.read("y", 4, abutting: true, into: &fields), reader.accept("-"),
            reader.read("M", 2, abutting: true, into: &fields), reader.accept("-"),
            reader.read("d", 2, abutting: true, into: &fields)
        else { return nil }
        if reader.accept("T") {
            guard reader.read("H", 2, abutting: true, into: &fields), reader.accept(":"),
                reader.read("m", 2, abutting: true, into: &fields)
            else { return nil }
            if reader.accept(":") {
                guard reader.read("s", 2, abutting: true, into: &fields) else { return nil }
                if reader.accept(".") || reader.accept(",") {
                    guard let fraction = reader.digits(maximum: 9) else { return nil }
                    let padded = fraction.text + String(repeating: "0", count: max(0, 3 - fraction.text.count))
                    fields.millisecond = Int(padded.prefix(3)) ?? 0
                }
            }
            if !reader.atEnd {
                guard reader.read("X", 3, abutting: false, into: &fields) else { return nil }
            }
        }
        guard reader.atEnd else { return nil }
        return fields.epochMilliseconds(zone: zone)
    }
}

/// The fields a pattern read, before they make an instant.
struct ParsedFields {
    var year = 1970
    var month = 1
    var day = 1
    var hour = 0
    var isPM: Bool?
    var minute = 0
    var second = 0
    var millisecond = 0
    var isBC = false
    var offsetSeconds: Int?

    func epochMilliseconds(zone: ZoneRules) -> Int? {
        var hour = self.hour
        if let isPM {
            guard (0...12).contains(hour) else { return nil }
            hour = hour % 12 + (isPM ? 12 : 0)
        }
        let year = isBC ? 1 - self.year : self.year
        guard (1...12).contains(month), (1...CivilCalendar.daysInMonth(year: year, month: month)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let local = CivilDateTime(
            year: year,
            month: month,
            day: day,
            hour: hour,
            minute: minute,
            second: min(second, 59)
        )
        let seconds = offsetSeconds.map { local.localSeconds - $0 } ?? zone.epochSeconds(forLocal: local)
        return seconds * 1000 + millisecond
    }
}

/// A cursor over date text.
struct DateTextReader {
    private let chars: [Character]
    private var position = 0

    init(_ chars: [Character]) {
        self.chars = chars
    }

    var atEnd: Bool { position == chars.count }

    mutating func accept(_ literal: String) -> Bool {
        let expected = Array(literal)
        guard chars.count - position >= expected.count else { return false }
        for (i, c) in expected.enumerated() where chars[position + i].lowercased() != c.lowercased() { return false }
        position += expected.count
        return true
    }

    mutating func digits(maximum: Int) -> (value: Int, text: String)? {
        var text = ""
        while position < chars.count, text.count < maximum, chars[position].isASCII, chars[position].isNumber {
            text.append(chars[position])
            position += 1
        }
        return text.isEmpty ? nil : (Int(text)!, text)
    }

    /// One of `names` (or its first three letters), case ignored: its index.
    private mutating func name(_ names: [String]) -> Int? {
        for (i, name) in names.enumerated() where accept(name) { return i }
        for (i, name) in names.enumerated() where accept(String(name.prefix(3))) { return i }
        return nil
    }

    /// The zone names RFC 822 dates use.
    static let namedOffsets = [
        "GMT": 0, "UTC": 0, "UT": 0, "Z": 0, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5,
        "MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
    ]

    mutating func read(_ letter: Character, _ count: Int, abutting: Bool, into fields: inout ParsedFields) -> Bool {
        switch letter {
        case "M" where count >= 3, "L" where count >= 3:
            guard let month = name(DateText.monthNames) else { return false }
            fields.month = month + 1
            return true
        case "E":
            return name(DateText.weekdayNames) != nil
        case "a":
            if accept("AM") { fields.isPM = false } else if accept("PM") { fields.isPM = true } else { return false }
            return true
        case "G":
            if accept("AD") { fields.isBC = false } else if accept("BC") { fields.isBC = true } else { return false }
            return true
        case "z", "Z", "X":
            return zone(into: &fields)
        default:
            guard let number = digits(maximum: abutting ? count : 10) else { return false }
            switch letter {
            case "y", "Y":
                fields.year = number.value
                if count <= 2, number.text.count == 2 { fields.year = Self.fullYear(number.value) }
            case "M", "L": fields.month = number.value
            case "d": fields.day = number.value
            case "H", "k": fields.hour = letter == "k" && number.value == 24 ? 0 : number.value
            case "h", "K": fields.hour = number.value
            case "m": fields.minute = number.value
            case "s": fields.second = number.value
            case "S": fields.millisecond = min(number.value, 999)
            default: break
            }
            return true
        }
    }

    /// A two-digit year within 80 years before and 20 after now, as `SimpleDateFormat` reads it.
    private static func fullYear(_ twoDigits: Int) -> Int {
        let now = CivilDateTime(localSeconds: Int(Date().timeIntervalSince1970)).year
        var year = now - now % 100 + twoDigits
        if year > now + 20 { year -= 100 }
        if year <= now - 80 { year += 100 }
        return year
    }

    /// `Z`, `+02:00`, `+0200`, `+02`, `GMT`, `GMT+02:00`, `EST`.
    private mutating func zone(into fields: inout ParsedFields) -> Bool {
        for (name, hours) in Self.namedOffsets.sorted(by: { $0.key.count > $1.key.count }) where accept(name) {
            fields.offsetSeconds = hours * 3600
            guard hours == 0, position < chars.count, chars[position] == "+" || chars[position] == "-" else {
                return true
            }
            break
        }
        guard position < chars.count, chars[position] == "+" || chars[position] == "-" else {
            return fields.offsetSeconds != nil
        }
        let sign = chars[position] == "-" ? -1 : 1
        position += 1
        guard let hours = digits(maximum: 2), hours.value <= 18 else { return false }
        var minutes = 0
        _ = accept(":")
        if let m = digits(maximum: 2) {
            guard m.value < 60 else { return false }
            minutes = m.value
        }
        fields.offsetSeconds = sign * (hours.value * 3600 + minutes * 60)
        return true
    }
}
