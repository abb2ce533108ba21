import HTTPServer
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
        if trust.isAvailable {
            if caFile != nil {
                do { try trust.prepare() } catch { throw SetupError(description: error.description) }
            }
        } else {
            #if canImport(Darwin)
            do { fallback = try URLSessionTransport(caFile: caFile) } catch { throw SetupError(description: "\(error)") }
            #else
            // Linux without a loadable libssl: http works, https answers 502 saying why; a CA file
            // could never be used, so it is an error now.
            if caFile != nil {
                throw SetupError(description: "--proxy-ca needs OpenSSL (libssl.so.3 or .1.1), which cannot be loaded here: \(TLSContext.availability() ?? "")")
            }
            #endif
        }
        engine.upstream.value = ClientTransport(client: HTTPClient(server: server, trust: trust), fallback: fallback)
    }
}
