import HTTP1
import JSON
import StubEngine

/// Two admin APIs share `/__admin` on one port: stubserver's own and WireMock's. A request
/// goes to one of them by these rules, first that applies (docs/wiremock.md, "Two admin APIs on one port"):
///
/// 1. A route only one dialect has is that dialect's (`/__admin/stubs` native,
///    `/__admin/mappings` WireMock).
/// 2. `X-Stubserver-Dialect: native` or `wiremock` says which; the inspector's own requests
///    (`X-Stubserver-UI`) are native.
/// 3. A journal entry's id says it: a number is native, a UUID WireMock's.
/// 4. A request pattern in the body (`find`, `count`, `remove`) says it by its words:
///    `url`, `urlPath`, `queryParameters`, `bodyPatterns`, `equalTo`... are WireMock's;
///    `path`, `query`, `body`, `equals`... native.
/// 5. Otherwise the server's default: WireMock's when it serves a WireMock folder
///    (`--admin-dialect` changes it).
enum AdminDialects {
    /// Routes (after `/__admin`) that both dialects have, where the rules above decide.
    static func isShared(_ method: String, _ rest: String) -> Bool {
        switch (method, rest) {
        case ("GET", "/health"), ("POST", "/reset"), ("GET", "/requests"), ("DELETE", "/requests"),
            ("POST", "/requests/find"), ("POST", "/requests/count"), ("GET", "/requests/unmatched"):
            return true
        default:
            return rest.hasPrefix("/requests/")
                && !["/requests/remove", "/requests/reset", "/requests/remove-by-metadata"].contains(rest)
                && !rest.hasPrefix("/requests/unmatched/")
        }
    }

    static func choose(_ request: IncomingRequest, rest: String, default fallback: AdminDialect) -> AdminDialect {
        if let said = request.headers["X-Stubserver-Dialect"]?.lowercased(), let dialect = AdminDialect(rawValue: said)
        {
            return dialect
        }
        if request.headers.contains("X-Stubserver-UI") { return .native }
        if rest.hasPrefix("/requests/"), !rest.hasPrefix("/requests/find"), !rest.hasPrefix("/requests/count"),
            rest != "/requests/unmatched"
        {
            // Digits are a journal id, ours, even too many for a number (then none is found).
            let id = rest.dropFirst("/requests/".count)
            return !id.isEmpty && id.utf8.allSatisfy { (0x30...0x39).contains($0) } ? .native : .wiremock
        }
        if !request.body.isEmpty, let node = try? JSONParser.parse(request.body), let words = patternVocabulary(node) {
            return words
        }
        return fallback
    }

    static let wiremockWords: Set<String> = [
        "url", "urlPath", "urlPattern", "urlPathPattern", "urlPathTemplate", "pathParameters",
        "queryParameters", "bodyPatterns", "cookies", "basicAuthCredentials", "formParameters",
        "customMatcher", "multipartPatterns", "clientIp", "scheme", "port",
        "equalTo", "doesNotContain", "doesNotMatch", "equalToJson", "matchesJsonPath", "binaryEqualTo",
    ]
    static let nativeWords: Set<String> = [
        "path", "pathPattern", "query", "body", "equals", "present", "json", "jsonEquals", "form",
    ]

    /// Which dialect a request pattern is written in, from its keys (and its header matchers'
    /// operators); nil when it uses only words both share (`method`, `headers` with `contains`).
    static func patternVocabulary(_ node: JSONNode) -> AdminDialect? {
        guard let members = node.members else { return nil }
        var keys = members.map(\.key)
        for member in members where member.key == "headers" {
            for header in member.value.members ?? [] { keys += header.value.members?.map(\.key) ?? [] }
            if member.value.members?.contains(where: { $0.value.string != nil }) == true { return .native }
        }
        if keys.contains(where: wiremockWords.contains) { return .wiremock }
        if keys.contains(where: nativeWords.contains) { return .native }
        return nil
    }
}
