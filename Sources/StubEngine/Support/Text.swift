#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

// What the engine needs of Foundation's string and error helpers, written here: on Linux the
// server modules import FoundationEssentials, not Foundation (which brings ICU and 6 MiB of
// resident memory), and Essentials has no `localizedDescription` (nor `trimmingCharacters`:
// SystemSupport's `trimmingSpaces`).

extension String {
    /// Spaces appended up to `width` characters (never cut), for aligned help columns.
    package func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

/// `value` with exactly `decimals` digits after the point, rounded half away from zero
/// (`String(format: "%.2f")` without Foundation).
package func fixedPoint(_ value: Double, decimals: Int) -> String {
    guard value.isFinite else { return "0" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e18 else { return "\(value)" }
    let whole = Int(scaled)
    let unit = Int(scale)
    var text = "\(whole / unit)"
    if decimals > 0 {
        let fraction = String(whole % unit)
        text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
    return value < 0 && whole != 0 ? "-" + text : text
}

/// An error as a user reads it: the system's words for a file error ("No such file or
/// directory"), the error's own description otherwise.
package func describe(_ error: any Error) -> String {
    #if canImport(FoundationEssentials)
    if let cocoa = error as? CocoaError {
        if let underlying = cocoa.userInfo["NSUnderlyingError"] as? POSIXError {
            return SystemErrors.message(underlying.code.rawValue)
        }
        switch cocoa.code {
        case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file"
        case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
        case .fileWriteOutOfSpace: return "no space left on the device"
        default: return "file error \(cocoa.code.rawValue)"
        }
    }
    if let posix = error as? POSIXError { return SystemErrors.message(posix.code.rawValue) }
    return "\(error)"
    #else
    return error.localizedDescription
    #endif
}
