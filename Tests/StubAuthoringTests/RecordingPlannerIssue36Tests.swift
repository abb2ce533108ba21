import Foundation
import HTTP1
import JSON
@testable import StubAuthoring
@testable import StubEngine
import Testing

/// What issue 36 found in recordings, each fixed in the one planner (recordings and HAR):
/// body files shared across endpoints, JSON with a closing newline put in a file, compressed
/// bodies saved compressed, absolute links to the upstream, and sessions replayed by call order.
@Suite struct RecordingPlannerIssue36Tests {
    func exchange(
        _ path: String,
        method: String = "GET",
        status: Int = 200,
        headers: [(String, String)] = [("Content-Type", "application/json")],
        answer: [UInt8] = Array(#"{"ok":true}"#.utf8),
        cookies: [(String, String)] = []
    ) -> RecordedExchange {
        RecordedExchange(
            method: method,
            path: path,
            status: status,
            headers: headers.map { (name: $0.0, value: $0.1) },
            body: answer,
            requestCookies: cookies.map { (name: $0.0, value: $0.1) },
            serverURLs: [("http://backend:5000", ""), ("http://127.0.0.1:8080", "")]
        )
    }

    func plan(_ exchanges: [RecordedExchange]) -> (StubFolderPlan, [String: JSONNode]) {
        var planner = ExchangeStubPlanner(bodyConditions: .always, keepSecrets: false)
        let plan = planner.plan(exchanges)
        var parsed: [String: JSONNode] = [:]
        for file in plan.stubFiles { parsed[file.relativePath] = try? JSONParser.parse(file.bytes) }
        return (plan, parsed)
    }

    @Test func bodyFilesAreSharedOnlyWithinOneEndpoint() {
        let pretty = Array("{\n  \"ok\": true\n}".utf8)
        let (plan, files) = plan([
            exchange("/api/health", answer: pretty), exchange("/api/health", answer: pretty),
            exchange("/api/logout", method: "POST", answer: pretty),
        ])
        #expect(
            plan.bodyFiles.map(\.relativePath) == ["__files/get-api-health-1.json", "__files/post-api-logout-1.json"]
        )
        #expect(files["post-api-logout.json"]?["response"]?["bodyFile"]?.string == "__files/post-api-logout-1.json")
    }

    @Test func jsonStaysInlineWhateverItsTrailingWhitespace() {
        let (plan, files) = plan([
            exchange("/a", answer: Array("{\"ok\":true}\n".utf8)),
            exchange("/b", answer: Array("[1,2]\r\n \t".utf8)),
        ])
        #expect(plan.bodyFiles.isEmpty)
        #expect(files["get-a.json"]?["response"]?["body"]?["ok"]?.bool == true)
        #expect(files["get-b.json"]?["response"]?["body"]?.elements?.count == 2)
    }

    static let gzipCSV: [UInt8] = [
        0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xCB, 0x4C, 0xD1, 0xC9, 0x4B, 0xCC, 0x4D, 0xE5,
        0x32, 0xD4, 0x49, 0xCC, 0x4B, 0xE4, 0x32, 0xD2, 0x49, 0xCA, 0xE7, 0x02, 0x00, 0x89, 0x5E, 0x95, 0xDE, 0x13,
        0x00, 0x00, 0x00,
    ]

    @Test func aCompressedBodyIsStoredDecodedWithItsOwnExtension() {
        let csv = [("Content-Type", "text/csv"), ("Content-Encoding", "gzip")]
        let (plan, files) = plan([
            exchange("/report", headers: csv, answer: Self.gzipCSV),
            exchange(
                "/brotli",
                headers: [("Content-Type", "text/csv"), ("Content-Encoding", "br")],
                answer: [1, 2, 3]
            ),
        ])
        let report = files["get-report.json"]?["response"]
        #expect(report?["headers"]?["Content-Encoding"] == nil)
        #expect(report?["body"]?.string == "id,name\n1,ana\n2,bo\n", "short text inline, decoded")
        let brotli = files["get-brotli.json"]?["response"]
        #expect(brotli?["headers"]?["Content-Encoding"]?.string == "br", "a coding it cannot undo stays true")
        #expect(brotli?["bodyFile"]?.string == "__files/get-brotli-1.csv.br")
        #expect(plan.bodyFiles.first?.bytes == [1, 2, 3])
    }

    @Test func linksToTheServerBecomeBaseURLTemplates() {
        let link = #"<http://BACKEND:5000/api/items?page=2>; rel="next", <http://other.example/x>; rel="help""#
        let (_, files) = plan([
            exchange("/api/items", headers: [("Content-Type", "application/json"), ("Link", link)]),
            exchange("/old", status: 302, headers: [("Location", "http://127.0.0.1:8080/new")], answer: []),
            exchange("/raw", headers: [("Location", "http://backend:5000/a")], answer: Array(#"{"t":"{{x}}"}"#.utf8)),
            exchange("/near", status: 301, headers: [("Location", "http://backend:50001/a")], answer: []),
        ])
        let items = files["get-api-items.json"]?["response"]
        #expect(
            items?["headers"]?["Link"]?.string
                == #"<{{request.baseUrl}}/api/items?page=2>; rel="next", <http://other.example/x>; rel="help""#
        )
        #expect(items?["template"]?.bool == true)
        #expect(files["get-old.json"]?["response"]?["headers"]?["Location"]?.string == "{{request.baseUrl}}/new")
        let raw = files["get-raw.json"]?["response"]
        #expect(raw?["headers"]?["Location"]?.string == "http://backend:5000/a", "a body with {{ is not a template")
        #expect(raw?["template"] == nil)
        let near = files["get-near.json"]?["response"]?["headers"]?["Location"]?.string
        #expect(near == "http://backend:50001/a", "another port is another server")
    }

    @Test func sessionsFollowTheCookiesNotTheOrderOfCalls() throws {
        let login = [
            ("Content-Type", "application/json"), ("Set-Cookie", "session=s3cr3t; Path=/; Domain=backend; Secure"),
        ]
        let logout = [("Content-Type", "application/json"), ("Set-Cookie", "session=; Max-Age=0; Path=/")]
        let signedIn = [("session", "s3cr3t"), ("theme", "dark")]
        let (plan, files) = plan([
            exchange("/api/me", status: 401, answer: Array(#"{"error":"no"}"#.utf8), cookies: [("theme", "dark")]),
            exchange("/api/login", method: "POST", headers: login),
            exchange("/api/me", answer: Array(#"{"user":"ana"}"#.utf8), cookies: signedIn),
            exchange("/api/logout", method: "POST", headers: logout, cookies: signedIn),
            exchange("/api/me", status: 401, answer: Array(#"{"error":"no"}"#.utf8), cookies: [("theme", "dark")]),
        ])
        let everything = plan.files.map { String(decoding: $0.bytes, as: UTF8.self) }.joined()
        #expect(!everything.contains("s3cr3t"))
        let me = try #require(files["get-api-me.json"]?.elements)
        #expect(me.count == 2)
        #expect(me.allSatisfy { $0["responses"] == nil }, "no order-based sequence")
        #expect(me[0]["response"]?["status"]?.number?.value == 401)
        #expect(me[0]["request"]?["headers"] == nil)
        #expect(me[1]["response"]?["status"]?.number?.value == 200)
        let cookie = try #require(me[1]["request"]?["headers"]?["Cookie"]?["matches"]?.string)
        #expect(cookie == #"(.*;\s*)?session\=recorded\-1(;.*)?"#)
        let setCookie = files["post-api-login.json"]?["response"]?["headers"]?["Set-Cookie"]?.string
        #expect(setCookie == "session=recorded-1; Path=/")
        let cleared = files["post-api-logout.json"]?["response"]?["headers"]?["Set-Cookie"]?.string
        #expect(cleared == "session=; Max-Age=0; Path=/")
    }
}
