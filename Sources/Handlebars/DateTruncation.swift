import SystemSupport

/// WireMock's date truncations (`truncateDate`'s second argument, its date matchers'
/// `truncateExpected`), applied on the UTC clock as WireMock applies them to an instant.
enum DateTruncation: String, Sendable, CaseIterable {
    case firstMinuteOfHour = "first minute of hour"
    case firstHourOfDay = "first hour of day"
    case firstDayOfMonth = "first day of month"
    case firstDayOfNextMonth = "first day of next month"
    case lastDayOfMonth = "last day of month"
    case firstDayOfYear = "first day of year"
    case firstDayOfNextYear = "first day of next year"
    case lastDayOfYear = "last day of year"

    /// The truncated instant, in epoch milliseconds. Days start at midnight; the "last day"
    /// truncations give that day's midnight, as WireMock's do.
    func apply(toEpochMilliseconds milliseconds: Int) -> Int {
        let (seconds, _) = CivilCalendar.floorDivide(milliseconds, 1000)
        let clock = CivilDateTime(localSeconds: seconds)
        var result = CivilDateTime(year: clock.year, month: clock.month, day: clock.day)
        switch self {
        case .firstMinuteOfHour: result.hour = clock.hour
        case .firstHourOfDay: break
        case .firstDayOfMonth: result.day = 1
        case .firstDayOfNextMonth:
            result.day = 1
            result = result.adding(months: 1)
        case .lastDayOfMonth: result.day = CivilCalendar.daysInMonth(year: clock.year, month: clock.month)
        case .firstDayOfYear:
            result.month = 1
            result.day = 1
        case .firstDayOfNextYear:
            result = CivilDateTime(year: clock.year + 1, month: 1, day: 1)
        case .lastDayOfYear:
            result.month = 12
            result.day = 31
        }
        return result.localSeconds * 1000
    }
}
