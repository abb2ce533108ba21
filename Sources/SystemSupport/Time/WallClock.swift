#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The time of day by the system's clock, in one call (`clock_gettime`, through the vDSO on
/// Linux): for when something happened, such as the journal's `receivedAt`. Timeouts and
/// timers use a monotonic clock instead, which the wall clock's adjustments do not move.
package enum WallClock {
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    package static func nanosecondsSince1970() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
