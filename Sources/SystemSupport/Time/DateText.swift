/// The words and digits dates are written with, in English whatever the machine's locale: the
/// one table of month and weekday names and the one zero-padding, for HTTP dates, log times and
/// template dates alike (no Foundation `Locale` or formatter, which need ICU).
package enum DateText {
    /// January first.
    package static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]

    /// Indexed by ISO weekday (`CivilCalendar.weekday`): 1 is Monday, 7 is Sunday; index 0 is
    /// Sunday too, so `weekday % 7` indexes a week that starts on Sunday.
    package static let weekdayNames = [
        "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    ]

    /// `month` 1...12, as `Jan`.
    package static func shortMonthName(_ month: Int) -> Substring { monthNames[month - 1].prefix(3) }

    /// ISO weekday 1...7, as `Mon`.
    package static func shortWeekdayName(_ weekday: Int) -> Substring { weekdayNames[weekday].prefix(3) }

    /// Decimal digits with zeros in front up to `width` (`-` before them for a negative value).
    package static func zeroPadded(_ value: Int, width: Int) -> String {
        let digits = String(value.magnitude)
        let padded = digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        return value < 0 ? "-" + padded : padded
    }
}
