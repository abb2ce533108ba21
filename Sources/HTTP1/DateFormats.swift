#if canImport(SystemSupport)  // compiled into one module with it by scripts/fuzz
import SystemSupport
#endif

/// Every date the package writes in a fixed format, on `SystemSupport`'s `CivilCalendar` and
/// `DateText` (the package's one calendar and one table of names): no Foundation formatter (not
/// documented thread-safe on Linux, and ICU is absent from the shipped binary), no locale.
/// Templates' own formats (`JavaDateFormat`) are written with the same calendar and names.
package enum DateFormats {
    /// IMF-fixdate (RFC 9110 §5.6.7), the `Date` header: `Sun, 06 Nov 1994 08:49:37 GMT`.
    package static func imfFixdate(epochSeconds: Int) -> String {
        let t = CivilDateTime(localSeconds: epochSeconds)
        let weekday = DateText.shortWeekdayName(t.weekday)
        let month = DateText.shortMonthName(t.month)
        return "\(weekday), \(pad(t.day, 2)) \(month) \(pad(t.year, 4)) \(timeOfDay(t)) GMT"
    }

    /// RFC 3339 in UTC: `2026-11-23T10:15:58Z`, or with milliseconds `2026-11-23T10:15:58.842Z`
    /// (templates' `now`, journal entries, JSON logs).
    package static func rfc3339(epochMilliseconds: Int, withMilliseconds: Bool) -> String {
        let (seconds, millisecond) = CivilCalendar.floorDivide(epochMilliseconds, 1000)
        let t = CivilDateTime(localSeconds: seconds)
        var text = "\(pad(t.year, 4))-\(pad(t.month, 2))-\(pad(t.day, 2))T\(timeOfDay(t))"
        if withMilliseconds { text += "." + pad(millisecond, 3) }
        return text + "Z"
    }

    /// `HH:mm:ss.SSS` of a day, for the console's request log (local time: the caller adds its
    /// offset from UTC).
    package static func clock(epochMilliseconds: Int) -> String {
        let (seconds, millisecond) = CivilCalendar.floorDivide(epochMilliseconds, 1000)
        return timeOfDay(CivilDateTime(localSeconds: seconds)) + "." + pad(millisecond, 3)
    }

    /// `HH:mm:ss`.
    private static func timeOfDay(_ t: CivilDateTime) -> String {
        "\(pad(t.hour, 2)):\(pad(t.minute, 2)):\(pad(t.second, 2))"
    }

    private static func pad(_ value: Int, _ width: Int) -> String { DateText.zeroPadded(value, width: width) }
}
