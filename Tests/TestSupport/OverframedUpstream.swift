import Foundation

/// An upstream that sends more than the response it owes, in each of the ways a proxy's pooled
/// connection can be poisoned: bytes after a Content-Length body, Content-Length with
/// Transfer-Encoding, a body on a HEAD, 204 or 304 answer or after a 1xx, bytes sent while the
/// connection sits idle. The extra bytes are a whole response, "smuggled", that a proxy reusing
/// the connection would hand to the next request. `check` drives one case through a proxy (in
/// process or the binary) on one keep-alive client connection and lists every answer that went
/// to the wrong request.
public enum OverframedUpstream {
    public struct Case: Sendable {
        public let name: String
        public let method: String
        public let path: String
    }

    /// The response a reused connection would deliver to the wrong request.
    public static let smuggled = Array(
        "HTTP/1.1 200 OK\r\nX-Answer: smuggled\r\nContent-Length: 8\r\n\r\nsmuggled".utf8
    )

    public static let cases: [Case] = [
        Case(name: "a body longer than its Content-Length", method: "GET", path: "/extra"),
        Case(name: "Content-Length with Transfer-Encoding", method: "GET", path: "/cl-te"),
        Case(name: "Content-Length with Transfer-Encoding, the rest later", method: "GET", path: "/cl-te-later"),
        Case(name: "bytes after the last chunk", method: "GET", path: "/chunked-extra"),
        Case(name: "a body on a HEAD answer", method: "HEAD", path: "/head"),
        Case(name: "a body on a 204", method: "GET", path: "/204"),
        Case(name: "a body on a 304", method: "GET", path: "/304"),
        Case(name: "a body on a 100 Continue", method: "GET", path: "/100"),
        Case(name: "differing Content-Lengths", method: "GET", path: "/two-lengths"),
        Case(name: "a close-delimited body", method: "GET", path: "/until-close"),
        Case(name: "bytes while the connection is idle", method: "GET", path: "/idle-bytes"),
        Case(name: "a close while the connection is idle", method: "GET", path: "/idle-close"),
    ]

    /// The upstream: `/v/N` answers "answer to /v/N"; each case's path answers as the case says.
    public static func start() throws -> ScriptedUpstream {
        try ScriptedUpstream { request in steps(for: request.target) }
    }

    static func steps(for path: String) -> [ScriptedUpstream.Step] {
        func head(_ status: String, _ fields: String) -> [UInt8] {
            Array("HTTP/1.1 \(status)\r\nX-Answer: \(path)\r\n\(fields)\r\n".utf8)
        }
        switch path {
        case "/extra":
            return [.send(head("200 OK", "Content-Length: 2\r\n") + Array("ok".utf8) + smuggled)]
        case "/cl-te":
            return [
                .send(
                    head("200 OK", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n") + Array("0\r\n\r\n".utf8)
                        + smuggled
                )
            ]
        case "/cl-te-later":
            // The chunked body ends; what a Content-Length reader would still count comes later.
            return [
                .send(head("200 OK", "Content-Length: 90\r\nTransfer-Encoding: chunked\r\n") + Array("0\r\n\r\n".utf8)),
                .pause(milliseconds: 20), .send(smuggled),
            ]
        case "/chunked-extra":
            return [
                .send(head("200 OK", "Transfer-Encoding: chunked\r\n") + Array("2\r\nok\r\n0\r\n\r\n".utf8) + smuggled)
            ]
        case "/head":
            return [.send(head("200 OK", "Content-Length: \(smuggled.count)\r\n") + smuggled)]
        case "/204":
            return [.send(head("204 No Content", "Content-Length: \(smuggled.count)\r\n") + smuggled)]
        case "/304":
            return [.send(head("304 Not Modified", "") + smuggled)]
        case "/100":
            return [
                .send(
                    Array("HTTP/1.1 100 Continue\r\n\r\nbody".utf8) + head("200 OK", "Content-Length: 2\r\n")
                        + Array("ok".utf8)
                )
            ]
        case "/two-lengths":
            return [.send(head("200 OK", "Content-Length: 2\r\nContent-Length: 10\r\n") + Array("ok".utf8) + smuggled)]
        case "/until-close":
            return [.send(head("200 OK", "Connection: keep-alive\r\n") + Array("ok".utf8)), .close]
        case "/idle-bytes":
            return [
                .send(head("200 OK", "Content-Length: 2\r\n") + Array("ok".utf8)), .pause(milliseconds: 20),
                .send(smuggled),
            ]
        case "/idle-close":
            return [
                .send(head("200 OK", "Content-Length: 2\r\n") + Array("ok".utf8)), .pause(milliseconds: 20), .close,
            ]
        default:
            let body = Array("answer to \(path)".utf8)
            return [
                .send(
                    Array("HTTP/1.1 200 OK\r\nX-Answer: \(path)\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
                )
            ]
        }
    }

    /// On one keep-alive connection to the proxy at `port`: `/v/0` (so a pooled connection
    /// exists), the case's request, then `/v/1` to `/v/3`. Each `/v/N` must get its own answer;
    /// the case's request its own or a 502. Returns what went wrong, empty when nothing did.
    /// `answeredBefore`: requests the upstream answered before this call (it waits for the
    /// upstream to finish each script, so bytes sent after a response are there first).
    public static func check(
        _ testCase: Case,
        proxyPort port: Int,
        upstream: ScriptedUpstream,
        answeredBefore: Int = 0
    ) throws -> [String] {
        var problems: [String] = []
        let client = try WireConnection(port: port)
        defer { client.close() }
        var answered = answeredBefore
        func ask(_ method: String, _ path: String) throws -> WireResponse {
            client.send("\(method) \(path) HTTP/1.1\r\nHost: proxy.test\r\n\r\n")
            let response = try client.readResponse(timeoutMilliseconds: 10_000, isHead: method == "HEAD")
            // Each request reaches the upstream once (a retry goes only where none arrived).
            answered += 1
            if !upstream.waitUntilAnswered(answered) {
                problems.append("\(path): the upstream did not finish its script")
            }
            return response
        }
        func expectOwn(_ path: String) throws {
            let response = try ask("GET", path)
            let own = response.header("X-Answer") == path && response.text == "answer to \(path)"
            if !own {
                problems.append("\(path) got \(response.status) \(response.header("X-Answer") ?? "-") \(response.text)")
            }
        }
        try expectOwn("/v/0")
        let answer = try ask(testCase.method, testCase.path)
        if answer.status != 502 && answer.header("X-Answer") != testCase.path {
            problems.append("\(testCase.path) got \(answer.status) \(answer.header("X-Answer") ?? "-") \(answer.text)")
        }
        for n in 1...3 { try expectOwn("/v/\(n)") }
        return problems.map { "\(testCase.name): \($0)" }
    }
}
