/// The offset from UTC in force at some instant, with the zone's name for it (`BST`, `EST`).
package struct ZoneOffset: Sendable, Equatable {
    package let seconds: Int
    package let isDaylightSaving: Bool
    package let abbreviation: String

    package init(seconds: Int, isDaylightSaving: Bool, abbreviation: String) {
        self.seconds = seconds
        self.isDaylightSaving = isDaylightSaving
        self.abbreviation = abbreviation
    }
}

/// A time zone's rules: the transitions of the system's zone database (TZif), then its POSIX
/// rule for instants past the table, or one fixed offset. Instants are seconds since the Unix
/// epoch (UTC); local times are `CivilDateTime`s.
package struct ZoneRules: Sendable {
    /// As asked for (`Europe/London`, `UTC`, `GMT+02:00`).
    package let identifier: String
    /// UTC seconds at which `transitionOffsets[i]` begins, ascending.
    let transitions: [Int]
    let transitionOffsets: [ZoneOffset]
    /// Before the first transition (and everywhere when there is none and no rule).
    let initialOffset: ZoneOffset
    /// From the last transition on, when the file has one.
    let rule: POSIXZoneRule?

    init(
        identifier: String,
        transitions: [Int],
        transitionOffsets: [ZoneOffset],
        initialOffset: ZoneOffset,
        rule: POSIXZoneRule?
    ) {
        self.identifier = identifier
        self.transitions = transitions
        self.transitionOffsets = transitionOffsets
        self.initialOffset = initialOffset
        self.rule = rule
    }

    package static let utc = ZoneRules.fixed(identifier: "UTC", seconds: 0, abbreviation: "UTC")

    package static func fixed(identifier: String, seconds: Int, abbreviation: String) -> ZoneRules {
        ZoneRules(
            identifier: identifier,
            transitions: [],
            transitionOffsets: [],
            initialOffset: ZoneOffset(seconds: seconds, isDaylightSaving: false, abbreviation: abbreviation),
            rule: nil
        )
    }

    /// The offset in force at `epochSeconds`.
    package func offset(atEpochSeconds epochSeconds: Int) -> ZoneOffset {
        guard let first = transitions.first, epochSeconds >= first else {
            if transitions.isEmpty, let rule { return rule.offset(atEpochSeconds: epochSeconds) }
            return initialOffset
        }
        if let rule, let last = transitions.last, epochSeconds >= last {
            return rule.offset(atEpochSeconds: epochSeconds)
        }
        // The last transition at or before the instant.
        var low = 0
        var high = transitions.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if transitions[middle] <= epochSeconds { low = middle } else { high = middle - 1 }
        }
        return transitionOffsets[low]
    }

    /// The instant of a wall-clock time, as Java's `ZonedDateTime.of` resolves it: in an
    /// overlap (clocks turned back) the earlier instant; in a gap (clocks turned forward) the
    /// time is moved later by the gap's length.
    package func epochSeconds(forLocal local: CivilDateTime) -> Int {
        let localSeconds = local.localSeconds
        let before = offset(atEpochSeconds: localSeconds - 86_400).seconds
        let after = offset(atEpochSeconds: localSeconds + 86_400).seconds
        let candidates = [before, after].map { localSeconds - $0 }
            .filter { localSeconds - offset(atEpochSeconds: $0).seconds == $0 }
        if let earliest = candidates.min() { return earliest }
        return localSeconds - before
    }

    /// The wall-clock reading at an instant.
    package func local(atEpochSeconds epochSeconds: Int, nanosecond: Int = 0) -> CivilDateTime {
        CivilDateTime(localSeconds: epochSeconds + offset(atEpochSeconds: epochSeconds).seconds, nanosecond: nanosecond)
    }
}
