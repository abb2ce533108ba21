/// Every date the package writes, one formatter per format, by arithmetic on Unix time: no
/// Foundation formatter (not documented thread-safe on Linux), no locale.
package enum DateFormats {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"] // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// IMF-fixdate (RFC 9110 §5.6.7), the `Date` header: `Sun, 06 Nov 1994 08:49:37 GMT`.
    package static func imfFixdate(epochSeconds: Int) -> String {
        let (dayNumber, secondOfDay) = split(epochSeconds, 86_400)
        let (y, m, d) = civil(fromDays: dayNumber)
        let weekday = days[((dayNumber % 7) + 7) % 7]
        return "\(weekday), \(pad2(d)) \(months[m - 1]) \(y) \(pad2(secondOfDay / 3600)):\(pad2(secondOfDay % 3600 / 60)):\(pad2(secondOfDay % 60)) GMT"
    }

    /// RFC 3339 in UTC: `2026-11-23T10:15:58Z`, or with milliseconds `2026-11-23T10:15:58.842Z`
    /// (templates' `now`, journal entries, JSON logs).
    package static func rfc3339(epochMilliseconds: Int, withMilliseconds: Bool) -> String {
        let (seconds, millisecond) = split(epochMilliseconds, 1000)
        let (dayNumber, secondOfDay) = split(seconds, 86_400)
        let (y, m, d) = civil(fromDays: dayNumber)
        var text = "\(pad(y, 4))-\(pad2(m))-\(pad2(d))T\(pad2(secondOfDay / 3600)):\(pad2(secondOfDay % 3600 / 60)):\(pad2(secondOfDay % 60))"
        if withMilliseconds { text += "." + pad(millisecond, 3) }
        return text + "Z"
    }

    /// `HH:mm:ss.SSS` of a day, for the console's request log (local time: the caller adds its
    /// offset from UTC).
    package static func clock(epochMilliseconds: Int) -> String {
        let (_, millisecondOfDay) = split(epochMilliseconds, 86_400_000)
        return "\(pad2(millisecondOfDay / 3_600_000)):\(pad2(millisecondOfDay / 60_000 % 60)):\(pad2(millisecondOfDay / 1000 % 60)).\(pad(millisecondOfDay % 1000, 3))"
    }

    /// Days since 1970-01-01 to (year, month, day), after Howard Hinnant's civil_from_days.
    package static func civil(fromDays z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Floor division: (quotient, non-negative remainder), also before 1970.
    private static func split(_ value: Int, _ unit: Int) -> (Int, Int) {
        let quotient = value >= 0 ? value / unit : (value - (unit - 1)) / unit
        return (quotient, value - quotient * unit)
    }

    private static func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    private static func pad(_ n: Int, _ width: Int) -> String {
        let digits = String(n)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
