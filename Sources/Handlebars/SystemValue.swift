#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `systemValue`: an environment variable (or a Java system property, of which a Swift
/// server has none, so those give the default). A stub file must not be a way to read the
/// server's secrets, so only the keys WireMock permits by default are read: names that start
/// with `wiremock` in any case (`WIREMOCK_ENV`, `wiremock.region`); any other key renders
/// WireMock's access-denied error.
struct SystemValue: Sendable {
    let key: String
    let isEnvironment: Bool

    var isPermitted: Bool { key.lowercased().hasPrefix("wiremock") }

    func read(default fallback: HandlebarsValue?) -> HandlebarsValue {
        guard isPermitted else { return HandlebarsJSONHelpers.error("Access to \(key) is denied") }
        if isEnvironment, let value = ProcessInfo.processInfo.environment[key] { return .string(value) }
        return fallback ?? .string("")
    }
}
