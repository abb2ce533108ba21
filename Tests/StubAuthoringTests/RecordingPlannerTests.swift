import Foundation
import HTTP1
import JSON
@testable import StubAuthoring
@testable import StubEngine
import Testing

/// How recorded exchanges become stub files: grouping, sequences, body conditions, secrets,
/// file names and bodies, and path globs for what is recorded.
@Suite struct RecordingPlannerTests {
    func exchange(
        _ path: String,
        method: String = "GET",
        query: [(String, String)] = [],
        body: String = "",
        type: String = "",
        status: Int = 200,
        headers: [(String, String)] = [("Content-Type", "application/json")],
        answer: String = #"{"ok":true}"#
    ) -> RecordedExchange {
        RecordedExchange(
            method: method,
            path: path,
            query: query.map { (name: $0.0, value: $0.1) },
            requestBody: Array(body.utf8),
            requestContentType: type,
            status: status,
            headers: headers.map { (name: $0.0, value: $0.1) },
            body: Array(answer.utf8)
        )
    }

    func plan(
        _ exchanges: [RecordedExchange],
        keepSecrets: Bool = false,
        reserved: Set<String> = []
    ) -> (StubFolderPlan, [String: JSONNode]) {
        var planner = ExchangeStubPlanner(
            bodyConditions: .always,
            keepSecrets: keepSecrets,
            reservedStubNames: reserved
        )
        let plan = planner.plan(exchanges)
        var parsed: [String: JSONNode] = [:]
        for file in plan.stubFiles { parsed[file.relativePath] = try? JSONParser.parse(file.bytes) }
        return (plan, parsed)
    }

    @Test func sameAnswersTwiceIsOneResponseDifferentAnswersASequence() {
        let (_, files) = plan([
            exchange("/a"), exchange("/a"), exchange("/b", answer: "[1]"), exchange("/b", answer: "[2]"),
        ])
        #expect(files["get-a.json"]?["response"]?["body"]?["ok"]?.bool == true)
        #expect(files["get-a.json"]?["responses"] == nil)
        #expect(files["get-b.json"]?["responses"]?.elements?.count == 2)
    }

    @Test func aForwardProxyRecordingsHostIsAConditionThatKeepsHostsApart() {
        var api = exchange("/v1/me", answer: #"{"host":"api"}"#)
        api.host = "api.example.com"
        var cdn = exchange("/v1/me", answer: #"{"host":"cdn"}"#)
        cdn.host = "cdn.example.org"
        let (planned, files) = plan([api, cdn, api])
        #expect(planned.stubCount == 2, "one stub per host, not a sequence of both")
        let stubs = files["get-v1-me.json"]?.elements ?? []
        #expect(stubs.map { $0["request"]?["host"]?.string } == ["api.example.com", "cdn.example.org"])
        #expect(stubs.first?["response"] != nil, "the repeated request to one host is one answer")
        let (_, plain) = plan([exchange("/v1/me")])
        #expect(plain["get-v1-me.json"]?["request"]?["host"] == nil, "no host condition without the forward proxy")
    }

    @Test func queriesAreConditionsAndOrderDoesNotSplitThem() {
        let (plan, files) = plan([
            exchange("/s", query: [("q", "x"), ("n", "1")]), exchange("/s", query: [("n", "1"), ("q", "x")]),
            exchange("/s", query: [("q", "y")]),
        ])
        #expect(plan.stubCount == 2)
        let stubs = files["get-s.json"]?.elements ?? []
        #expect(stubs.first?["request"]?["query"]?["q"]?.string == "x")
        #expect(stubs.first?["response"] != nil, "the two orders are one request")
    }

    @Test func bodiesMatchAsJSONEqualsOrTextAndBinaryIsNotMatched() {
        let json = exchange("/login", method: "POST", body: #"{"u":"a"}"#, type: "application/json")
        let text = exchange("/form", method: "POST", body: "a=1&b=2", type: "application/x-www-form-urlencoded")
        var binary = exchange("/upload", method: "POST", type: "application/octet-stream")
        binary.requestBody = [0xff, 0xfe, 0x00]
        let (_, files) = plan([json, text, binary])
        #expect(files["post-login.json"]?["request"]?["body"]?["jsonEquals"]?["u"]?.string == "a")
        #expect(files["post-form.json"]?["request"]?["body"]?["equals"]?.string == "a=1&b=2")
        #expect(files["post-upload.json"]?["request"]?["body"] == nil)
    }

    @Test func secretsAreLeftOutUnlessKept() {
        var login = exchange(
            "/login",
            method: "POST",
            headers: [
                ("Content-Type", "application/json"), ("Set-Cookie", "s=1"), ("Set-Cookie", "t=2"),
                ("Date", "x"), ("Server", "y"), ("Age", "3"), ("Via", "1.1 cdn"), ("X-Kept", "k"),
            ]
        )
        login.requestHeaders = [(name: "Authorization", value: "Bearer abc"), (name: "X-Version", value: "2")]
        var planner = ExchangeStubPlanner(bodyConditions: .always, keepSecrets: false)
        let hidden = planner.plan([login])
        let text = String(decoding: hidden.files[0].bytes, as: UTF8.self)
        #expect(
            !text.contains("Bearer abc") && !text.contains("s=1") && !text.contains("\"Date\"")
                && !text.contains("\"Via\"")
        )
        #expect(text.contains("X-Kept") && text.contains("\"present\": true") && text.contains("\"X-Version\""))
        #expect(planner.droppedSecrets == ["set-cookie": 2, "authorization": 1])
        var keeping = ExchangeStubPlanner(bodyConditions: .always, keepSecrets: true)
        let kept = String(decoding: keeping.plan([login]).files[0].bytes, as: UTF8.self)
        #expect(kept.contains("Bearer abc") && kept.contains("\"s=1\"") && kept.contains("\"t=2\""))
    }

    @Test func bodiesInlineWhenExactElseInFilesWithAnExtension() {
        let pretty = exchange("/pretty", answer: "{\n  \"a\": 1\n}")
        let png = exchange("/logo", headers: [("Content-Type", "image/png")], answer: "\u{1}PNG")
        let html = exchange("/page", headers: [("Content-Type", "text/html; charset=utf-8")], answer: "<p>hi</p>")
        let (plan, files) = plan([pretty, png, html])
        #expect(plan.bodyFiles.map(\.relativePath) == ["__files/get-pretty-1.json", "__files/get-logo-1.png"])
        #expect(plan.bodyFiles[0].bytes == Array("{\n  \"a\": 1\n}".utf8), "byte for byte")
        #expect(files["get-page.json"]?["response"]?["body"]?.string == "<p>hi</p>")
    }

    @Test func namesAvoidWhatTheFolderHasAndPathsRoundTrip() {
        let (plan, files) = plan([exchange("/users/{id}/*")], reserved: ["get-users-id.json"])
        #expect(plan.stubFiles.map(\.relativePath) == ["get-users-id-2.json"])
        #expect(files["get-users-id-2.json"]?["request"]?["path"]?.string == "/users/%7Bid%7D/%2A")
    }

    @Test func globs() {
        let api = PathGlob("/api/**")!
        #expect(api.matches("/api") && api.matches("/api/v1/users") && !api.matches("/apix") && !api.matches("/other"))
        let avatar = PathGlob("/users/*/avatar")!
        #expect(avatar.matches("/users/42/avatar") && !avatar.matches("/users/42/x/avatar"))
        let png = PathGlob("/**/*.png")!
        #expect(png.matches("/a/b/logo.png") && png.matches("/logo.png") && !png.matches("/logo.jpg"))
        #expect(PathGlob("/v?/x")!.matches("/v1/x"))
        #expect(PathGlob("api/**") == nil)
        let settings = RecordingSettings(output: "", include: [api], exclude: [PathGlob("/api/health")!])
        #expect(
            settings.records(path: "/api/users") && !settings.records(path: "/api/health")
                && !settings.records(path: "/web")
        )
    }
}
