import Foundation
import HTTP1
import HTTPSockets
import StubEngine
import StubProxy

/// A stubserver in your test process: real sockets on 127.0.0.1, an ephemeral port, stubs from
/// a folder or built in code. Each test can have its own; they share nothing.
///
///     let server = try LocalStubServer {
///         StubDefinition(request: .get("/v1/me"), response: .json(["id": 42]))
///     }
///     defer { server.stop() }
///     ... point the client at server.baseURL ...
///     server.stubs.verify(.get("/v1/me"), count: 1)
///
/// Another process can reach it too: an app under XCUITest, given `baseURL` in its launch
/// environment (docs/testing.md, "UI tests").
public final class LocalStubServer: Sendable {
    /// What the server answers from, and what it received.
    public let stubs: Stubs
    private let server: HTTP1Server
    /// The CA certificate (DER) behind the server's certificate, when it serves HTTPS.
    let authorityCertificate: [UInt8]?

    /// Serves `stubs` on 127.0.0.1, on a free port. With `proxyingUnmatchedTo`, a request no
    /// stub matches is forwarded to that server (http or https; its path and query appended to
    /// the URL's) instead of answered 404: stub only what the real backend lacks. With `https`,
    /// the port speaks TLS too and `baseURL` is `https://` (see `LocalStubServer.HTTPS`).
    public init(_ stubs: Stubs, proxyingUnmatchedTo upstream: URL? = nil, https: HTTPS? = nil) throws(StubError) {
        self.stubs = stubs
        let engine = stubs.engine
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.loopCount = 1
        if let https {
            let made = try Self.makeTLS(https)
            configuration.tls = made.tls
            authorityCertificate = made.authority
        } else {
            authorityCertificate = nil
        }
        server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        if let upstream {
            guard let url = UpstreamURL(upstream.absoluteString) else {
                throw StubError(
                    message: "cannot proxy to \(upstream.absoluteString): an http or https URL without query is needed"
                )
            }
            engine.fallbackProxy.value = ProxyRule(upstream: url)
        }
        do {
            try ProxyTransports.install(on: engine, server: server)
        } catch {
            throw StubError(message: "cannot proxy: \(error)")
        }
        do {
            try server.start()
        } catch {
            throw StubError(message: "cannot listen: \(error)")
        }
        engine.fallbackBaseURL.value = server.baseURL
    }

    /// Loads `directory` (if given), adds `stubs`, and starts listening on 127.0.0.1 on a free port.
    public convenience init(
        directory: String? = nil,
        stubs: [StubDefinition] = [],
        proxyingUnmatchedTo upstream: URL? = nil,
        https: HTTPS? = nil
    ) throws(StubError) {
        try self.init(try Stubs(directory: directory, stubs), proxyingUnmatchedTo: upstream, https: https)
    }

    /// The same, with the stubs written as a list (`StubListBuilder`).
    public convenience init(
        directory: String? = nil,
        proxyingUnmatchedTo upstream: URL? = nil,
        https: HTTPS? = nil,
        @StubListBuilder stubs: () -> [StubDefinition]
    ) throws(StubError) {
        try self.init(try Stubs(directory: directory, stubs()), proxyingUnmatchedTo: upstream, https: https)
    }

    /// `http://127.0.0.1:PORT`, or `https://127.0.0.1:PORT` when serving HTTPS (plain HTTP
    /// answers on the same port).
    public var baseURL: URL { URL(string: server.secureBaseURL ?? server.baseURL)! }
    public var port: Int { server.port }

    /// Stops listening and closes every connection; waits until done. Answers still in their
    /// delay or dribble are cut at once (journaled as `abandoned`), not waited for.
    public func stop() { server.stopAndWait() }

    /// A server the test forgot to stop is stopped, without blocking whichever thread released it.
    deinit { server.stopInBackground() }
}
