import SystemSupport
import Testing

/// The one calendar: day numbers both ways, leap years, weekdays, month arithmetic, before
/// 1970 and past 2038.
@Suite struct CivilCalendarTests {
    @Test(arguments: [
        (1970, 1, 1, 0),
        (1969, 12, 31, -1),
        (2000, 2, 29, 11_016),
        (2000, 3, 1, 11_017),
        (1900, 3, 1, -25_508),
        (2038, 1, 19, 24_855),
        (2100, 1, 1, 47_482),
        (1, 1, 1, -719_162),
    ])
    func dayNumbersBothWays(_ year: Int, _ month: Int, _ day: Int, _ number: Int) {
        #expect(CivilCalendar.dayNumber(year: year, month: month, day: day) == number)
        let date = CivilCalendar.date(dayNumber: number)
        #expect(date.year == year && date.month == month && date.day == day)
    }

    @Test func everyDayFromYear0To2400RoundTrips() {
        let first = CivilCalendar.dayNumber(year: 0, month: 1, day: 1)
        let last = CivilCalendar.dayNumber(year: 2400, month: 12, day: 31)
        var expected = (year: 0, month: 1, day: 1)
        for number in first...last {
            let date = CivilCalendar.date(dayNumber: number)
            #expect(date == expected, "day \(number)")
            if date != expected { return }
            expected.day += 1
            if expected.day > CivilCalendar.daysInMonth(year: expected.year, month: expected.month) {
                expected.day = 1
                expected.month += 1
                if expected.month > 12 { expected = (expected.year + 1, 1, 1) }
            }
        }
    }

    @Test func leapYears() {
        #expect(CivilCalendar.isLeapYear(2000))
        #expect(CivilCalendar.isLeapYear(2024))
        #expect(!CivilCalendar.isLeapYear(1900))
        #expect(!CivilCalendar.isLeapYear(2100))
        #expect(!CivilCalendar.isLeapYear(2023))
        #expect(CivilCalendar.daysInMonth(year: 2024, month: 2) == 29)
        #expect(CivilCalendar.daysInMonth(year: 2100, month: 2) == 28)
        #expect(CivilCalendar.dayOfYear(year: 2024, month: 12, day: 31) == 366)
        #expect(CivilCalendar.dayOfYear(year: 2023, month: 12, day: 31) == 365)
    }

    @Test func weekdays() {
        #expect(CivilCalendar.weekday(dayNumber: 0) == 4, "1970-01-01 was a Thursday")
        #expect(CivilCalendar.weekday(dayNumber: -1) == 3, "1969-12-31 a Wednesday")
        #expect(CivilCalendar.weekday(dayNumber: -4) == 7, "1969-12-28 a Sunday")
        #expect(CivilDateTime(year: 2038, month: 1, day: 19).weekday == 2, "a Tuesday")
        #expect(CivilDateTime(year: 2000, month: 2, day: 29).weekday == 2)
    }

    @Test func secondsBeforeAndAfter1970AndPast2038() {
        #expect(CivilDateTime(localSeconds: -1).description == "1969-12-31T23:59:59")
        #expect(CivilDateTime(localSeconds: 2_147_483_648).description == "2038-01-19T03:14:08")
        #expect(CivilDateTime(localSeconds: 4_102_444_800).description == "2100-01-01T00:00:00")
        #expect(CivilDateTime(localSeconds: -2_203_891_200).description == "1900-03-01T00:00:00")
        #expect(
            CivilDateTime(year: 2038, month: 1, day: 19, hour: 3, minute: 14, second: 8).localSeconds == 2_147_483_648
        )
    }

    @Test func monthArithmeticClampsTheDay() {
        let january31 = CivilDateTime(year: 2024, month: 1, day: 31, hour: 10)
        #expect(january31.adding(months: 1).description == "2024-02-29T10:00:00")
        #expect(january31.adding(months: 13).description == "2025-02-28T10:00:00")
        #expect(january31.adding(months: -2).description == "2023-11-30T10:00:00")
        #expect(CivilDateTime(year: 2024, month: 2, day: 29).adding(months: 12).description == "2025-02-28T00:00:00")
        #expect(CivilDateTime(year: 2024, month: 3, day: 1).adding(days: -1).description == "2024-02-29T00:00:00")
        #expect(CivilDateTime(year: 1970, month: 1, day: 1).adding(days: -365).description == "1969-01-01T00:00:00")
    }

    @Test func floorDivisionBefore1970() {
        #expect(CivilCalendar.floorDivide(-1, 1000) == (-1, 999))
        #expect(CivilCalendar.floorDivide(-1000, 1000) == (-1, 0))
        #expect(CivilCalendar.floorDivide(1999, 1000) == (1, 999))
    }
}
