import Foundation

/// `--proxy-timeout` on a pooled connection: an upstream answers `/fast` at once and never
/// answers anything else. `run` asks `/fast` (its connection goes to the pool), lets the pool
/// sit idle past the timeout, then asks `/slow` twice on the same client connection. Each
/// `/slow` must get 504 at the timeout. Before the fix the first waited for ever: an exchange
/// on a pooled connection had no timer of its own, only the one its connection's previous
/// exchange had left, which had fired while the connection was idle.
public enum TimeoutAfterReuse {
    public static func start() throws -> ScriptedUpstream {
        try ScriptedUpstream { request in
            request.target == "/fast" ? [.response(200, body: Array("fast".utf8))] : [.hang]
        }
    }

    /// The two `/slow` answers: status (0 when none came within five timeouts) and milliseconds.
    public static func run(proxyPort port: Int, timeoutMilliseconds: Int) throws -> [(status: Int, milliseconds: Int)] {
        let client = try WireConnection(port: port)
        defer { client.close() }
        client.send("GET /fast HTTP/1.1\r\nHost: proxy.test\r\n\r\n")
        guard try client.readResponse().text == "fast" else { return [] }
        // The point of the test, not a wait for readiness: the pooled connection idles past
        // the timeout, so no timer left from its first exchange is still pending.
        WireConnection.staysSilentFor(milliseconds: Int32(timeoutMilliseconds + timeoutMilliseconds / 2))
        var answers: [(status: Int, milliseconds: Int)] = []
        for _ in 0..<2 {
            let start = WireConnection.now()
            client.send("GET /slow HTTP/1.1\r\nHost: proxy.test\r\n\r\n")
            let status = (try? client.readResponse(timeoutMilliseconds: 5 * timeoutMilliseconds).status) ?? 0
            answers.append((status, WireConnection.now() - start))
            if status == 0 { break }
        }
        return answers
    }
}
