import HTTP1

/// The seam to whatever answers requests (the stub engine, a test, the benchmark). It runs on an
/// event-loop thread and must not block: it answers at once (`.now`) or promises an answer
/// (`.later`) that may be completed from any thread. The request is handed over (`consuming`):
/// the server has no further use for it, so the handler can keep it without a copy.
package typealias Handler = @Sendable (consuming IncomingRequest) -> Reply

/// Told about every request the parser refused, for logs.
package typealias RejectionObserver = @Sendable (_ peer: String, _ error: HTTPParseError) -> Void

package struct ServerConfiguration: Sendable {
    /// Address or name to listen on. `localhost` listens on 127.0.0.1 and ::1.
    package var host: String = "127.0.0.1"
    /// 0 picks a free port; read it back from `HTTP1Server.port`.
    package var port: Int = 0
    package var limits = HTTPParserLimits()
    /// A request's head must arrive within this time once it has begun (408 after).
    package var headerTimeoutMilliseconds: Int64 = 10_000
    /// A keep-alive connection with nothing to do is closed after this; a request body that
    /// makes no progress for this long gets 408.
    package var idleTimeoutMilliseconds: Int64 = 60_000
    /// A client that takes nothing of a response for this long is closed: a reader that never
    /// reads cannot pin a connection slot forever.
    package var writeTimeoutMilliseconds: Int64 = 30_000
    /// Past this many open connections the server stops accepting until one closes (or closes
    /// its longest-idle connection for a new client).
    package var maxConnections: Int = 4096
    /// Connections the kernel queues before the server accepts them.
    package var listenBacklog: Int32 = 1024
    /// Event-loop threads; each owns its connections. Default: one per core, at most 4.
    package var loopCount: Int = ServerConfiguration.defaultLoopCount
    /// epoll on Linux, kqueue on macOS; poll everywhere.
    package var selector: SelectorKind = .platformDefault
    /// How long `stop` lets in-flight responses finish before closing everything.
    package var shutdownGraceMilliseconds: Int64 = 5_000
    /// TLS beside plain HTTP on the same port (`--https`): the first byte of a connection says
    /// which it speaks. nil: plain HTTP only.
    package var tls: ServerTLS?
    /// Certificates for intercepted `CONNECT` tunnels (a forward proxy): one per host, asked of
    /// this issuer. nil: an interception is answered 502.
    package var interceptTLS: ServerTLS?
    /// Blind tunnels move their bytes with splice(2) through a pipe where the system has it
    /// (Linux); false: they copy through a buffer, as they do elsewhere (tests run both).
    package var splicesTunnels = true
    /// The `Server` header's value.
    package var serverName: String = "stubserver"
    package var onRejection: RejectionObserver?
    /// Told about failures of the loop itself (a selector that cannot wait); the loop goes on.
    package var onLoopError: (@Sendable (String) -> Void)?

    /// Run on each loop thread when a pass is done (its events handled, its mailbox empty),
    /// right before it waits. A handler that hands requests to a thread of its own can queue
    /// them during the pass and wake that thread here, once per pass instead of once per
    /// request (as Netty's `channelReadComplete` lets a handler flush once per read batch).
    package var afterPass: (@Sendable () -> Void)?

    package init() {}

    package static var defaultLoopCount: Int {
        max(1, min(4, Posix.processorCount()))
    }
}
