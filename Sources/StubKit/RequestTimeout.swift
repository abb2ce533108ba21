import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How long a request served by `StubURLProtocol` may sit idle before it fails with
/// `URLError(.timedOut)`, as it would over a network.
///
/// URLSession applies this itself to its own protocols, but swift-corelibs-foundation never
/// times out a custom `URLProtocol`: a stub that hangs would hang the test. So the transport
/// keeps its own timer, with URLSession's rule: the request's `timeoutInterval` when it was set,
/// else the session's `timeoutIntervalForRequest`.
///
/// A custom protocol cannot see either of these directly on Linux: the flag saying the request's
/// interval was set is internal, and so is the task's session. So: a request interval other than
/// the default 60 s counts as set (one explicitly set to 60 is taken as unset: the session's
/// applies); the session's configuration is read by reflection from the task (`TaskReflection`), and
/// when that ever fails the request's interval is used. On Apple platforms URLSession gives the
/// protocol a request that already carries the session's interval.
enum RequestTimeout {
    static let defaultInterval: TimeInterval = 60

    static func interval(for request: URLRequest, task: URLSessionTask?) -> TimeInterval {
        let own = request.timeoutInterval
        if own != defaultInterval { return positive(own) }
        return positive(sessionInterval(of: task) ?? own)
    }

    /// `timeoutIntervalForRequest` of the session that runs `task`, when reflection finds it.
    private static func sessionInterval(of task: URLSessionTask?) -> TimeInterval? {
        TaskReflection.session(of: task)?.configuration.timeoutIntervalForRequest
    }

    /// URLSession treats zero or less as "the default".
    private static func positive(_ interval: TimeInterval) -> TimeInterval {
        interval > 0 ? interval : defaultInterval
    }
}
