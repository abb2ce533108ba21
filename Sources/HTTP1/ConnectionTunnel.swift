#if canImport(SystemSupport)
import SystemSupport
#endif

/// What a handler asks of the server after `CONNECT host:port` (a forward proxy, RFC 9110
/// §9.3.6), and what the server tells it back. The handler answers with a `200` head and
/// `.tunnel(tunnel)`; the HTTP layer does the rest, knowing nothing of why:
/// - `.relay`: a blind tunnel. The server connects to `host:port`; when it cannot, the client
///   gets `502` with the reason instead of the `200`. Once open, bytes pass untouched both ways
///   until either side closes or the tunnel is idle for the server's idle timeout.
/// - `.intercept`: the server sends the `200`, then terminates TLS itself with a certificate
///   for `host` (the configuration's `interceptTLS`), and parses the requests inside as any
///   others, each carrying `tunnelAuthority`. A client that does not start TLS is closed.
///
/// The server fills in `progress` as it goes (from its loop); a journal reads it at any time,
/// and a log hears of each change of `state` (`observe`).
package final class ConnectionTunnel: Sendable {
    package enum Mode: String, Sendable { case relay, intercept }

    package enum State: String, Sendable {
        case connecting, open, failed, closed
    }

    package struct Progress: Sendable, Equatable {
        package var state: State = .connecting
        /// The status the client got: 200, or 502 when the upstream could not be reached.
        package var status: Int?
        package var bytesFromClient: Int = 0
        package var bytesToClient: Int = 0
        /// From the CONNECT to the close (or the failure); nil while open.
        package var milliseconds: Int64?
        /// Why it failed or ended other than by both sides closing (an unreachable host, a
        /// reset, the idle timeout, the server stopping).
        package var error: String?
    }

    private struct Record {
        var progress = Progress()
        var observers: [@Sendable (Progress) -> Void] = []
    }

    /// The host as the socket wants it (brackets of an IPv6 literal removed), and the port.
    package let host: String
    package let port: Int
    /// `host:port` as the client wrote it.
    package let authority: String
    package let mode: Mode
    private let record = Locked(Record())

    package init(host: String, port: Int, authority: String, mode: Mode) {
        self.host = host
        self.port = port
        self.authority = authority
        self.mode = mode
    }

    package var progress: Progress { record.withLock { $0.progress } }

    /// The server's side: what happened so far. Observers hear of it when `state` changed, on
    /// the calling thread, outside the lock.
    package func update(_ change: (inout Progress) -> Void) {
        let (progress, observers) = record.withLock { record in
            let before = record.progress.state
            change(&record.progress)
            return (record.progress, record.progress.state == before ? [] : record.observers)
        }
        for observer in observers { observer(progress) }
    }

    /// `observer` hears of every change of `state` from now on (`open`, `failed`, `closed`), with
    /// the progress as it is then; if the tunnel is already past `connecting`, at once as well.
    package func observe(_ observer: @escaping @Sendable (Progress) -> Void) {
        let current: Progress? = record.withLock { record in
            record.observers.append(observer)
            return record.progress.state == .connecting ? nil : record.progress
        }
        if let current { observer(current) }
    }

    /// `host:port` split (RFC 9112 §3.2.3 authority-form, already checked by the parser):
    /// nil when it is not `host:port` with a port of 1-65535.
    package static func split(authority: String) -> (host: String, port: Int)? {
        guard let colon = authority.utf8.lastIndex(of: UInt8(ascii: ":")) else { return nil }
        let hostPart = authority[..<colon]
        let portPart = authority[authority.index(after: colon)...]
        guard !hostPart.isEmpty, Authority.isValidPort(portPart.utf8, required: true), let port = Int(portPart)
        else { return nil }
        var host = String(hostPart)
        if host.hasPrefix("[") {
            guard host.hasSuffix("]") else { return nil }
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            return nil
        }
        return (host, port)
    }
}
