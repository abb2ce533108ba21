#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import StubEngine

/// WireMock's request conditions that the native keys cannot express, as engine conditions.
enum WireMockCondition: RequestCondition {
    /// `url` (exact) or `urlPattern` (regular expression): path and query as sent.
    case rawURL(ContentPattern)
    /// `urlPath` that is not a plain path (a bad escape): compared as sent.
    case rawPath(String)
    case excludedMethods([String])
    case query(String, MultiValuePattern)
    case header(String, MultiValuePattern)
    case cookie(String, MultiValuePattern)
    case form(String, MultiValuePattern)
    case pathParameter(String, ContentPattern)
    /// One of `bodyPatterns`, with its index there (for the import's notes).
    case body(ContentPattern, index: Int)
    /// One of `multipartPatterns`, with its index there.
    case multipart(WireMockMultipartPattern, index: Int)
    case basicAuth(username: String, password: String)
    case host(ContentPattern)
    case port(Int)
    case clientIp(String)
    /// Something stubserver cannot evaluate (`customMatcher`, `https`): never holds. `place`
    /// is the key below the mapping that asked for it.
    case never(String, place: [DefinitionStep])

    func holds(_ facts: RequestFacts, captures: [String: String]) -> Bool {
        switch self {
        case .rawURL(let pattern): return pattern.matches(facts.rawURL)
        case .rawPath(let path): return facts.rawPath == path
        case .excludedMethods(let methods): return !methods.contains(facts.request.method)
        case .query(let name, let pattern): return pattern.matches(facts.request.queryValues(name))
        case .header(let name, let pattern): return pattern.matches(facts.request.headers.values(name))
        case .cookie(let name, let pattern): return pattern.matches(facts.cookies(name))
        case .form(let name, let pattern): return pattern.matches(facts.formValues(name))
        case .pathParameter(let name, let pattern): return captures[name].map(pattern.matches) ?? false
        case .body(let pattern, _): return pattern.matchesBody(facts)
        case .multipart(let pattern, _): return pattern.holds(facts)
        case .basicAuth(let username, let password):
            return facts.basicCredentials.map { $0 == (username, password) } ?? false
        case .host(let pattern): return facts.request.hostWithoutPort.map { pattern.matches($0.lowercased()) } ?? false
        case .port(let port): return facts.port == port
        case .clientIp(let ip): return facts.clientIP == ip
        case .never: return false
        }
    }

    var restatesPath: Bool {
        if case .rawURL(.equalTo) = self { true } else { false }
    }

    func mismatch(_ facts: RequestFacts, captures: [String: String]) -> Mismatch {
        let request = facts.request
        switch self {
        case .rawURL(let pattern):
            return Mismatch(condition: "url", expected: pattern.description, actual: facts.rawURL)
        case .rawPath(let path): return Mismatch(condition: "path", expected: path, actual: facts.rawPath)
        case .excludedMethods(let methods):
            return Mismatch(
                condition: "method",
                expected: "none of " + methods.joined(separator: ", "),
                actual: request.method
            )
        case .query(let name, let pattern):
            return Mismatch(
                condition: "query.\(name)",
                expected: pattern.description,
                actual: RequestMatcher.describe(request.queryValues(name))
            )
        case .header(let name, let pattern):
            return Mismatch(
                condition: "header.\(name)",
                expected: pattern.description,
                actual: RequestMatcher.describe(request.headers.values(name))
            )
        case .cookie(let name, let pattern):
            return Mismatch(
                condition: "cookie.\(name)",
                expected: pattern.description,
                actual: RequestMatcher.describe(facts.cookies(name))
            )
        case .form(let name, let pattern):
            return Mismatch(
                condition: "form.\(name)",
                expected: pattern.description,
                actual: RequestMatcher.describe(facts.formValues(name))
            )
        case .pathParameter(let name, let pattern):
            return Mismatch(
                condition: "path.\(name)",
                expected: pattern.description,
                actual: RequestMatcher.describe(captures[name].map { [$0] } ?? [])
            )
        case .body(let pattern, _):
            return Mismatch(
                condition: "body",
                expected: pattern.description,
                actual: request.body.isEmpty ? "empty" : RequestMatcher.excerpt(facts.bodyText)
            )
        case .multipart(let pattern, let index):
            return Mismatch(
                condition: "multipartPatterns[\(index)]",
                expected: pattern.description,
                actual: facts.multipartSummary
            )
        case .basicAuth(let username, _):
            return Mismatch(
                condition: "basicAuth",
                expected: "user \"\(username)\" with its password",
                actual: facts.basicCredentials.map { "user \"\($0.0)\"" } ?? "no Basic credentials"
            )
        case .host(let pattern):
            return Mismatch(
                condition: "host",
                expected: pattern.description,
                actual: request.hostWithoutPort ?? "absent"
            )
        case .port(let port):
            return Mismatch(condition: "port", expected: String(port), actual: facts.port.map(String.init) ?? "unknown")
        case .clientIp(let ip): return Mismatch(condition: "clientIp", expected: ip, actual: facts.clientIP)
        case .never(let why, _): return Mismatch(condition: "unsupported", expected: why, actual: "not evaluated")
        }
    }
}

extension RequestFacts {
    /// What a multipart body holds, for a near miss: its parts' names or types, or why none.
    var multipartSummary: String {
        switch parsedMultipartBody {
        case nil: return "not multipart (Content-Type \(request.headers["Content-Type"] ?? "none"))"
        case .failure(let failure)?: return "a multipart body that does not read: \(failure)"
        case .success(let parts)?:
            let named = parts.map { part in
                part.values("Content-Disposition").last ?? part.values("Content-Type").last ?? "a part without headers"
            }
            return "\(parts.count) part\(parts.count == 1 ? "" : "s"): " + named.joined(separator: "; ")
        }
    }

    /// Path and query as the client sent them (WireMock's `url`): the origin-form target, or
    /// the path and query of an absolute-form one.
    var rawURL: String {
        let target = request.target
        if target.hasPrefix("/") { return target }
        let utf8 = Array(target.utf8)
        guard
            let colon = (0..<max(0, utf8.count - 2)).first(where: {
                utf8[$0] == 0x3A && utf8[$0 + 1] == 0x2F && utf8[$0 + 2] == 0x2F
            })
        else { return target }
        let authorityStart = target.utf8.index(target.utf8.startIndex, offsetBy: colon + 3)
        let afterAuthority = target[authorityStart...].firstIndex { $0 == "/" || $0 == "?" }
        guard let start = afterAuthority else { return "/" }
        let rest = String(target[start...])
        return rest.hasPrefix("?") ? "/" + rest : rest
    }

    /// The path as sent, without the query (WireMock's `request.path` in templates).
    var rawPath: String {
        let url = rawURL
        return url.firstIndex(of: "?").map { String(url[..<$0]) } ?? url
    }

    /// A cookie's values, from every `Cookie` field.
    func cookies(_ name: String) -> [String] {
        var values: [String] = []
        for field in request.headers.values("Cookie") {
            for pair in field.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                guard let eq = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<eq] == name { values.append(String(trimmed[trimmed.index(after: eq)...])) }
            }
        }
        return values
    }

    /// `Authorization: Basic base64(user:password)`, decoded.
    var basicCredentials: (String, String)? {
        guard let header = request.headers["Authorization"] else { return nil }
        let scheme = header.prefix { $0 != " " }
        guard scheme.lowercased() == "basic",
            let data = Data(base64Encoded: String(header.dropFirst(scheme.count).drop { $0 == " " })),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// The port the client addressed (from the authority), 80 when it names none.
    var port: Int? {
        guard let authority = request.authority else { return nil }
        if let close = authority.lastIndex(of: "]") {
            let rest = authority[authority.index(after: close)...]
            return rest.hasPrefix(":") ? Int(rest.dropFirst()) : 80
        }
        guard let colon = authority.lastIndex(of: ":") else { return 80 }
        return Int(authority[authority.index(after: colon)...])
    }

    /// The client's address without its port.
    var clientIP: String {
        let peer = request.peer
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") {
            return String(peer[peer.index(after: peer.startIndex)..<close])
        }
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        return String(peer[..<colon])
    }
}
