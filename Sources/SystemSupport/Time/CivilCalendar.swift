/// The proleptic Gregorian calendar as arithmetic on day numbers (days since 1970-01-01, negative
/// before), after Howard Hinnant's `days_from_civil` and `civil_from_days`. The one calendar of
/// the package: HTTP dates, log times and template dates all count days here, with no
/// Foundation `Calendar` (which needs ICU, absent from the shipped binary) and no locale.
package enum CivilCalendar {
    /// The day number of a date; `month` 1...12, `day` 1...31 (not checked: callers that read
    /// outside input check with `daysInMonth` first).
    package static func dayNumber(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day number.
    package static func date(dayNumber: Int) -> (year: Int, month: Int, day: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    package static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    package static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// ISO weekday: 1 is Monday, 7 is Sunday (1970-01-01 was a Thursday).
    package static func weekday(dayNumber: Int) -> Int {
        floorDivide(dayNumber + 3, 7).remainder + 1
    }

    /// Day of the year, 1 for the first of January.
    package static func dayOfYear(year: Int, month: Int, day: Int) -> Int {
        dayNumber(year: year, month: month, day: day) - dayNumber(year: year, month: 1, day: 1) + 1
    }

    /// Floor division: the quotient rounded down and a remainder in `0..<divisor`, also for
    /// negative values (times before 1970). `divisor` is positive.
    package static func floorDivide(_ value: Int, _ divisor: Int) -> (quotient: Int, remainder: Int) {
        let quotient = value >= 0 ? value / divisor : (value - (divisor - 1)) / divisor
        return (quotient, value - quotient * divisor)
    }
}

/// A date and time of day on a wall clock (no zone): what a zone's offset turns an instant into,
/// and what date arithmetic ("plus one month") works on.
package struct CivilDateTime: Sendable, Equatable, CustomStringConvertible {
    package var year: Int
    package var month: Int
    package var day: Int
    package var hour: Int
    package var minute: Int
    package var second: Int
    /// 0...999_999_999.
    package var nanosecond: Int

    package init(
        year: Int,
        month: Int,
        day: Int,
        hour: Int = 0,
        minute: Int = 0,
        second: Int = 0,
        nanosecond: Int = 0
    ) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.nanosecond = nanosecond
    }

    /// The wall-clock reading `localSeconds` seconds after 1970-01-01T00:00:00 on the same clock.
    package init(localSeconds: Int, nanosecond: Int = 0) {
        let (days, secondOfDay) = CivilCalendar.floorDivide(localSeconds, 86_400)
        let date = CivilCalendar.date(dayNumber: days)
        self.init(
            year: date.year,
            month: date.month,
            day: date.day,
            hour: secondOfDay / 3600,
            minute: secondOfDay % 3600 / 60,
            second: secondOfDay % 60,
            nanosecond: nanosecond
        )
    }

    package var dayNumber: Int { CivilCalendar.dayNumber(year: year, month: month, day: day) }

    /// Seconds since 1970-01-01T00:00:00 on this clock (subtract the zone's offset for UTC).
    package var localSeconds: Int { dayNumber * 86_400 + hour * 3600 + minute * 60 + second }

    /// ISO weekday, 1 (Monday) to 7 (Sunday).
    package var weekday: Int { CivilCalendar.weekday(dayNumber: dayNumber) }

    package var dayOfYear: Int { CivilCalendar.dayOfYear(year: year, month: month, day: day) }

    /// Months later (or earlier when negative), the day clamped to the month's last (Jan 31 plus
    /// one month is Feb 28 or 29), as Java's `plusMonths` does.
    package func adding(months: Int) -> CivilDateTime {
        let (yearShift, monthIndex) = CivilCalendar.floorDivide(month - 1 + months, 12)
        var result = self
        result.year = year + yearShift
        result.month = monthIndex + 1
        result.day = min(day, CivilCalendar.daysInMonth(year: result.year, month: result.month))
        return result
    }

    /// Days later (or earlier), the time of day kept.
    package func adding(days: Int) -> CivilDateTime {
        CivilDateTime(localSeconds: localSeconds + days * 86_400, nanosecond: nanosecond)
    }

    package var description: String {
        func pad(_ value: Int, _ width: Int) -> String { DateText.zeroPadded(value, width: width) }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
    }
}
