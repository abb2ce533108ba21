import HTTP1

/// The seam to whatever answers requests (the stub engine, a test, the benchmark). It runs on an
/// event-loop thread and must not block: anything slow is expressed as a response action.
package typealias HTTPHandler = @Sendable (IncomingRequest) -> OutgoingResponse

/// Told about every request the parser refused, for logs.
package typealias HTTPRejectionObserver = @Sendable (_ peer: String, _ error: HTTPParseError) -> Void

package struct ServerConfiguration: Sendable {
    /// Address or name to listen on. `localhost` listens on 127.0.0.1 and ::1.
    package var host: String = "127.0.0.1"
    /// 0 picks a free port; read it back from `HTTP1Server.port`.
    package var port: Int = 0
    package var limits = HTTPParserLimits()
    /// A request's head must arrive within this time once it has begun (408 after).
    package var headerTimeoutMilliseconds: Int64 = 10_000
    /// A keep-alive connection with nothing to do is closed after this.
    package var idleTimeoutMilliseconds: Int64 = 60_000
    /// Past this many open connections the server stops accepting until one closes.
    package var maxConnections: Int = 4096
    /// Event-loop threads; each owns its connections. Default: one per core, at most 4.
    package var loopCount: Int = ServerConfiguration.defaultLoopCount
    /// How long `stop` lets in-flight responses finish before closing everything.
    package var shutdownGraceMilliseconds: Int64 = 5_000
    /// The `Server` header's value.
    package var serverName: String = "stubserver"
    package var onRejection: HTTPRejectionObserver?

    package init() {}

    package static var defaultLoopCount: Int {
        max(1, min(4, ProcessInfoLite.activeProcessorCount))
    }
}

/// Core count without Foundation.
enum ProcessInfoLite {
    static var activeProcessorCount: Int { Posix.processorCount() }
}
