import HTTPSockets
import StubEngine
#if canImport(Darwin)
import StubProxyURLSession
#endif

/// Gives an engine its way to upstreams: the server's own client (http, and https through the
/// system's OpenSSL), with URLSession for https where OpenSSL is not available.
package enum ProxyTransports {
    package struct SetupError: Error, CustomStringConvertible {
        package let description: String
    }

    /// Sets `engine.upstream` for requests `server` receives. With a CA file, TLS is prepared
    /// now, so an unreadable file fails the start, not the first request.
    package static func install(on engine: Engine, server: HTTP1Server, caFile: String? = nil) throws(SetupError) {
        let trust = TLSTrust(caFile: caFile)
        var fallback: (any UpstreamTransport)?
        #if canImport(Darwin)
        // OpenSSL is not used on Apple platforms: URLSession carries https, with the CA file in
        // its trust evaluation.
        do { fallback = try URLSessionTransport(caFile: caFile) } catch { throw SetupError(description: "\(error)") }
        #else
        // OpenSSL loads on the first https request (most servers never make one, and it costs
        // 3 MiB); with a CA file, now, so a bad file fails the start. Without a loadable libssl,
        // https answers 502 saying why.
        if caFile != nil {
            do { try trust.prepare() } catch { throw SetupError(description: error.description) }
        }
        #endif
        engine.upstream.value = ClientTransport(client: HTTPClient(server: server, trust: trust), fallback: fallback)
    }
}
