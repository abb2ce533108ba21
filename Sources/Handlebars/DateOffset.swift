import SystemSupport

/// An amount of time as WireMock writes it (`3 days`, `-1 hours`, `2 years`), checked at load.
/// Seconds, minutes and hours move the instant; days, weeks, months and years move the date on
/// the zone's clock and keep the time of day (Java's `ZonedDateTime.plusDays` and its kin), so
/// `1 days` across a daylight-saving change is 23 or 25 hours.
struct DateOffset: Sendable, Equatable {
    enum Unit: String, Sendable, CaseIterable {
        case second, minute, hour, day, week, month, year
    }

    let amount: Int
    let unit: Unit

    init(amount: Int, unit: Unit) {
        self.amount = amount
        self.unit = unit
    }

    init(_ text: String) throws(HandlebarsHelperError) {
        let words = text.split(separator: " ")
        let unitWord = words.count == 2 ? words[1].lowercased() : ""
        let singular = unitWord.hasSuffix("s") ? String(unitWord.dropLast()) : unitWord
        guard words.count == 2, let amount = Int(words[0]), abs(amount) <= 1_000_000,
            let unit = Unit(rawValue: singular)
        else {
            throw HandlebarsHelperError(
                message: "offset='\(text)': write an amount and a unit, as in '3 days' or "
                    + "'-1 months' (seconds, minutes, hours, days, weeks, months, years)"
            )
        }
        self.amount = amount
        self.unit = unit
    }

    /// The instant `epochMilliseconds` moved by this offset, on `zone`'s clock.
    func applied(to epochMilliseconds: Int, in zone: ZoneRules) -> Int {
        switch unit {
        case .second: return epochMilliseconds + amount * 1000
        case .minute: return epochMilliseconds + amount * 60_000
        case .hour: return epochMilliseconds + amount * 3_600_000
        case .day, .week, .month, .year:
            let (seconds, millisecond) = CivilCalendar.floorDivide(epochMilliseconds, 1000)
            let local = zone.local(atEpochSeconds: seconds)
            let moved: CivilDateTime
            switch unit {
            case .day: moved = local.adding(days: amount)
            case .week: moved = local.adding(days: amount * 7)
            case .month: moved = local.adding(months: amount)
            default: moved = local.adding(months: amount * 12)
            }
            return zone.epochSeconds(forLocal: moved) * 1000 + millisecond
        }
    }
}
