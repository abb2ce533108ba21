/// A POSIX `TZ` rule (`GMT0BST,M3.5.0/1,M10.5.0`), as a TZif file's footer gives it for instants
/// past its table: a standard offset and optionally a daylight-saving one with the dates they
/// start, with RFC 8536's extensions (hours from -167 to 167 in the transition times).
struct POSIXZoneRule: Sendable, Equatable {
    /// When in a year a transition happens: a date rule and the local time of day (seconds).
    struct Transition: Sendable, Equatable {
        enum Day: Sendable, Equatable {
            /// `Jn`: day 1...365, February 29 never counted.
            case julianNoLeap(Int)
            /// `n`: day 0...365, February 29 counted.
            case zeroBased(Int)
            /// `Mm.w.d`: weekday `d` (0 Sunday) of week `w` (5 the last) of month `m`.
            case monthWeekDay(month: Int, week: Int, weekday: Int)
        }

        let day: Day
        let secondOfDay: Int

        /// The wall-clock seconds (on the clock in force before it) of the transition in `year`.
        func localSeconds(in year: Int) -> Int {
            let dayNumber: Int
            switch day {
            case .julianNoLeap(let n):
                let start = CivilCalendar.dayNumber(year: year, month: 1, day: 1)
                dayNumber = start + n - 1 + (CivilCalendar.isLeapYear(year) && n >= 60 ? 1 : 0)
            case .zeroBased(let n):
                dayNumber = CivilCalendar.dayNumber(year: year, month: 1, day: 1) + n
            case .monthWeekDay(let month, let week, let weekday):
                let first = CivilCalendar.dayNumber(year: year, month: month, day: 1)
                // ISO weekday 7 is Sunday, POSIX 0.
                let firstWeekday = CivilCalendar.weekday(dayNumber: first) % 7
                var day = first + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
                let last = first + CivilCalendar.daysInMonth(year: year, month: month) - 1
                while day > last { day -= 7 }
                dayNumber = day
            }
            return dayNumber * 86_400 + secondOfDay
        }
    }

    let standard: ZoneOffset
    let daylight: ZoneOffset?
    let start: Transition?
    let end: Transition?

    func offset(atEpochSeconds epochSeconds: Int) -> ZoneOffset {
        guard let daylight, let start, let end else { return standard }
        let year = CivilDateTime(localSeconds: epochSeconds + standard.seconds).year
        // Each transition time is given on the clock in force just before it.
        let starts = start.localSeconds(in: year) - standard.seconds
        let ends = end.localSeconds(in: year) - daylight.seconds
        let inDaylight =
            starts < ends
            ? epochSeconds >= starts && epochSeconds < ends
            : !(epochSeconds >= ends && epochSeconds < starts)
        return inDaylight ? daylight : standard
    }
}

/// Reads a POSIX `TZ` string; nil when it is not one.
struct POSIXZoneRuleReader {
    private let chars: [Character]
    private var position = 0

    init(_ text: String) {
        chars = Array(text)
    }

    static func read(_ text: String) -> POSIXZoneRule? {
        var reader = POSIXZoneRuleReader(text)
        return reader.rule()
    }

    private mutating func rule() -> POSIXZoneRule? {
        guard let standardName = name(), let standardOffset = time(maximumHours: 24) else { return nil }
        // POSIX offsets are west of Greenwich: `EST5` is five hours behind UTC.
        let standard = ZoneOffset(seconds: -standardOffset, isDaylightSaving: false, abbreviation: standardName)
        if position == chars.count {
            return POSIXZoneRule(standard: standard, daylight: nil, start: nil, end: nil)
        }
        guard let daylightName = name() else { return nil }
        var daylightSeconds = standard.seconds + 3600
        if position < chars.count, chars[position] != "," {
            guard let offset = time(maximumHours: 24) else { return nil }
            daylightSeconds = -offset
        }
        let daylight = ZoneOffset(seconds: daylightSeconds, isDaylightSaving: true, abbreviation: daylightName)
        guard position < chars.count else {
            // No rule given: the United States' since 2007, as the C library assumes.
            let start = POSIXZoneRule.Transition(day: .monthWeekDay(month: 3, week: 2, weekday: 0), secondOfDay: 7200)
            let end = POSIXZoneRule.Transition(day: .monthWeekDay(month: 11, week: 1, weekday: 0), secondOfDay: 7200)
            return POSIXZoneRule(standard: standard, daylight: daylight, start: start, end: end)
        }
        guard accept(","), let start = transition(), accept(","), let end = transition(), position == chars.count else {
            return nil
        }
        return POSIXZoneRule(standard: standard, daylight: daylight, start: start, end: end)
    }

    private mutating func accept(_ c: Character) -> Bool {
        guard position < chars.count, chars[position] == c else { return false }
        position += 1
        return true
    }

    /// `EST` (three or more letters) or `<+0330>` (letters, digits, signs in angle brackets).
    private mutating func name() -> String? {
        if accept("<") {
            let start = position
            while position < chars.count, chars[position] != ">" {
                guard chars[position].isASCII,
                    chars[position].isLetter || chars[position].isNumber
                        || chars[position] == "+" || chars[position] == "-"
                else { return nil }
                position += 1
            }
            let text = String(chars[start..<position])
            guard accept(">"), text.count >= 3 else { return nil }
            return text
        }
        let start = position
        while position < chars.count, chars[position].isASCII, chars[position].isLetter { position += 1 }
        return position - start >= 3 ? String(chars[start..<position]) : nil
    }

    private mutating func number(maximumDigits: Int) -> Int? {
        var value = 0
        var digits = 0
        while position < chars.count, digits < maximumDigits, let digit = chars[position].wholeNumberValue,
            chars[position].isASCII
        {
            value = value * 10 + digit
            digits += 1
            position += 1
        }
        return digits > 0 ? value : nil
    }

    /// `[+-]hh[:mm[:ss]]` in seconds.
    private mutating func time(maximumHours: Int) -> Int? {
        var sign = 1
        if accept("-") { sign = -1 } else { _ = accept("+") }
        guard let hours = number(maximumDigits: 3), hours <= maximumHours else { return nil }
        var seconds = hours * 3600
        if accept(":") {
            guard let minutes = number(maximumDigits: 2), minutes < 60 else { return nil }
            seconds += minutes * 60
            if accept(":") {
                guard let secs = number(maximumDigits: 2), secs < 60 else { return nil }
                seconds += secs
            }
        }
        return sign * seconds
    }

    private mutating func transition() -> POSIXZoneRule.Transition? {
        let day: POSIXZoneRule.Transition.Day
        if accept("J") {
            guard let n = number(maximumDigits: 3), (1...365).contains(n) else { return nil }
            day = .julianNoLeap(n)
        } else if accept("M") {
            guard let month = number(maximumDigits: 2), (1...12).contains(month), accept("."),
                let week = number(maximumDigits: 1), (1...5).contains(week), accept("."),
                let weekday = number(maximumDigits: 1), (0...6).contains(weekday)
            else { return nil }
            day = .monthWeekDay(month: month, week: week, weekday: weekday)
        } else {
            guard let n = number(maximumDigits: 3), (0...365).contains(n) else { return nil }
            day = .zeroBased(n)
        }
        var secondOfDay = 7200
        if accept("/") {
            guard let time = time(maximumHours: 167) else { return nil }
            secondOfDay = time
        }
        return POSIXZoneRule.Transition(day: day, secondOfDay: secondOfDay)
    }
}
