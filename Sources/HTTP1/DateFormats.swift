#if canImport(SystemSupport)  // compiled into one module with it by scripts/fuzz
import SystemSupport
#endif

/// Every date the package writes, one formatter per format, by arithmetic on Unix time with
/// `SystemSupport`'s `CivilCalendar` (the package's one calendar): no Foundation formatter (not
/// documented thread-safe on Linux, and ICU is absent from the shipped binary), no locale.
package enum DateFormats {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// IMF-fixdate (RFC 9110 §5.6.7), the `Date` header: `Sun, 06 Nov 1994 08:49:37 GMT`.
    package static func imfFixdate(epochSeconds: Int) -> String {
        let (dayNumber, secondOfDay) = split(epochSeconds, 86_400)
        let (y, m, d) = civil(fromDays: dayNumber)
        let weekday = days[((dayNumber % 7) + 7) % 7]
        return
            """
            \(weekday), \(pad2(d)) \(months[m - 1]) \(y) \
            \(pad2(secondOfDay / 3600)):\(pad2(secondOfDay % 3600 / 60)):\(pad2(secondOfDay % 60)) GMT
            """
    }

    /// RFC 3339 in UTC: `2026-11-23T10:15:58Z`, or with milliseconds `2026-11-23T10:15:58.842Z`
    /// (templates' `now`, journal entries, JSON logs).
    package static func rfc3339(epochMilliseconds: Int, withMilliseconds: Bool) -> String {
        let (seconds, millisecond) = split(epochMilliseconds, 1000)
        let (dayNumber, secondOfDay) = split(seconds, 86_400)
        let (y, m, d) = civil(fromDays: dayNumber)
        let date = "\(pad(y, 4))-\(pad2(m))-\(pad2(d))"
        let time = "\(pad2(secondOfDay / 3600)):\(pad2(secondOfDay % 3600 / 60)):\(pad2(secondOfDay % 60))"
        var text = date + "T" + time
        if withMilliseconds { text += "." + pad(millisecond, 3) }
        return text + "Z"
    }

    /// `HH:mm:ss.SSS` of a day, for the console's request log (local time: the caller adds its
    /// offset from UTC).
    package static func clock(epochMilliseconds: Int) -> String {
        let (_, millisecondOfDay) = split(epochMilliseconds, 86_400_000)
        let hours = pad2(millisecondOfDay / 3_600_000)
        let minutes = pad2(millisecondOfDay / 60_000 % 60)
        let seconds = pad2(millisecondOfDay / 1000 % 60)
        return "\(hours):\(minutes):\(seconds).\(pad(millisecondOfDay % 1000, 3))"
    }

    private static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let date = CivilCalendar.date(dayNumber: days)
        return (date.year, date.month, date.day)
    }

    private static func split(_ value: Int, _ unit: Int) -> (Int, Int) {
        let parts = CivilCalendar.floorDivide(value, unit)
        return (parts.quotient, parts.remainder)
    }

    private static func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    private static func pad(_ n: Int, _ width: Int) -> String {
        let digits = String(n)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
