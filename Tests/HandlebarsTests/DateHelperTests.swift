import Foundation
import Handlebars
import JSON
import SystemSupport
import Testing

/// The date reading and arithmetic behind the Handlebars helpers `parseDate`, `date` and
/// `now offset=`.
@Suite struct DateHelperTests {
    func render(_ text: String) throws -> String {
        struct NoData: HandlebarsData {
            func root(_ name: String) -> HandlebarsValue? { nil }
            func parseJSON(_ text: String) -> JSONNode? { nil }
        }
        return HandlebarsRenderer.render(try HandlebarsTemplate(text, knownRoots: []), data: NoData())
    }

    @Test(arguments: [
        (
            "{{date (parseDate '2021-06-15T15:16:17.250+02:00') format='yyyy-MM-dd HH:mm:ss.SSS XXX'}}",
            "2021-06-15 13:16:17.250 Z"
        ),
        ("{{date (parseDate 'Tuesday, 15-Jun-21 15:16:17 GMT')}}", "2021-06-15T15:16:17Z"),
        ("{{date (parseDate 'Tue Jun 15 15:16:17 2021')}}", "2021-06-15T15:16:17Z"),
        ("{{date (parseDate '20210615' format='yyyyMMdd')}}", "2021-06-15T00:00:00Z"),
        ("{{date (parseDate '3:05 PM, Jun 15 2021' format='h:mm a, MMM d yyyy')}}", "2021-06-15T15:05:00Z"),
        (
            "{{date (parseDate '15/06/2021 10:00' format='dd/MM/yyyy HH:mm' timezone='Europe/London')}}",
            "2021-06-15T09:00:00Z"
        ),
        ("{{date (parseDate '31/02/2021' format='dd/MM/yyyy')}}", ""),
        ("{{date (parseDate 'not a date')}}", ""),
        ("{{date (parseDate '1623770177123' format='epoch') format='unix'}}", "1623770177"),
        // 2021-01-31 plus a month is the last day of February; minus a day crosses a year.
        ("{{date (parseDate '2021-01-31T10:00:00Z') offset='1 months' format='yyyy-MM-dd'}}", "2021-02-28"),
        ("{{date (parseDate '2024-01-31T10:00:00Z') offset='1 months' format='yyyy-MM-dd'}}", "2024-02-29"),
        ("{{date (parseDate '2021-01-01T00:00:00Z') offset='-1 days'}}", "2020-12-31T00:00:00Z"),
        ("{{date (parseDate '2038-01-19T03:14:07Z') offset='2 seconds' format='epoch'}}", "2147483649000"),
        // A day across London's spring change is 23 hours: the wall-clock time is kept.
        (
            "{{date (parseDate '2024-03-30T12:00:00Z') offset='1 days' timezone='Europe/London' format='HH:mm XXX'}}",
            "12:00 +01:00"
        ),
        (
            "{{date (parseDate '2024-03-30T12:00:00Z') offset='24 hours' timezone='Europe/London' format='HH:mm XXX'}}",
            "13:00 +01:00"
        ),
        ("{{date (parseDate '1969-12-31T23:59:59Z') format='EEEE D w Y'}}", "Wednesday 365 1 1970"),
        (
            "{{date (parseDate '2024-12-31T00:00:00Z') format='E w Y u F W k K h a G'}}",
            "Tue 1 2025 2 5 5 24 0 12 AM AD"
        ),
        ("{{date (parseDate '2024-06-15T00:00:00Z') timezone='Asia/Kolkata' format='z Z X'}}", "IST +0530 +05"),
    ])
    func datesReadAndWritten(_ template: String, _ expected: String) throws {
        if template.contains("timezone="), FileStatus(path: ZoneDatabase.directory + "/Europe/London") == nil { return }
        #expect(try render(template) == expected, "\(template)")
    }
}
