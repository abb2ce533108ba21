import SystemSupport
import Testing

/// The one table of English names and the one zero-padding every date format writes with.
@Suite struct DateTextTests {
    @Test func namesByMonthAndISOWeekday() {
        #expect(DateText.monthNames.count == 12)
        #expect(DateText.shortMonthName(1) == "Jan")
        #expect(DateText.shortMonthName(12) == "Dec")
        #expect(DateText.shortWeekdayName(1) == "Mon")
        #expect(DateText.shortWeekdayName(7) == "Sun")
        // 1970-01-01 was a Thursday: the names follow `CivilCalendar.weekday`.
        #expect(DateText.weekdayNames[CivilCalendar.weekday(dayNumber: 0)] == "Thursday")
        #expect(DateText.weekdayNames[7 % 7] == "Sunday", "weekday % 7 is a week that starts on Sunday")
    }

    @Test(arguments: [
        (0, 2, "00"),
        (7, 2, "07"),
        (42, 2, "42"),
        (123, 2, "123"),
        (5, 4, "0005"),
        (-5, 4, "-0005"),
        (-12_345, 4, "-12345"),
        (0, 0, "0"),
        (Int.min, 2, "-9223372036854775808"),
    ])
    func zeroPadding(_ value: Int, _ width: Int, _ text: String) {
        #expect(DateText.zeroPadded(value, width: width) == text)
    }

    @Test func writtenDatesBeforeTheYearOne() {
        // Year 0 (1 BC) and before: the sign before the padded digits, not inside them.
        let t = CivilDateTime(year: -5, month: 3, day: 1)
        #expect(t.description == "-0005-03-01T00:00:00")
    }
}
