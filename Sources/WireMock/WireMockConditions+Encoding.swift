#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import RegularExpressions
import StubEngine
import SystemSupport

/// WireMock's conditions in the stub format, for `import wiremock` (`StubEncoder.encodeModel`):
/// what has a native key is written there, the rest is a gap at the mapping key it came from.
extension WireMockCondition {
    func encode(into request: inout EncodedRequest) {
        switch self {
        case .rawURL(.equalTo(let url, _)):
            // `url` is exact, query included: no other parameter, no other order, and no query
            // when it has none: `rawQuery` says so. The path is the stub's path pattern.
            let parts = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            if !request.hasPath, !Self.encodeRawPath(String(parts[0]), "url", into: &request) { return }
            request.rawQuery = parts.count > 1 ? .string(String(parts[1])) : .object([("absent", .bool(true))])
        case .rawURL(let pattern):
            encodeURLPattern(pattern, into: &request)
        case .rawPath(let path):
            _ = Self.encodeRawPath(path, "urlPath", into: &request)
        case .excludedMethods:
            request.gap(.dropped, ["request", "method"], "noneOf has no native form: the stub matches every method")
        case .query(let name, let pattern):
            if let matcher = Self.matcher(pattern), request.addQuery(name, matcher) { return }
            request.gap(
                .dropped,
                ["request", "queryParameters", .key(name)],
                "\(pattern.description) has no native form: the parameter is not checked"
            )
        case .header(let name, let pattern):
            encodeHeader(name, pattern, into: &request)
        case .cookie(let name, let pattern):
            encodeCookie(name, pattern, into: &request)
        case .form(let name, let pattern):
            if let matcher = Self.matcher(pattern), request.addFormField(name, matcher) { return }
            request.gap(
                .dropped,
                ["request", "formParameters", .key(name)],
                "\(pattern.description) has no native form"
            )
        case .pathParameter(let name, let pattern):
            if case .equalTo(let value, false) = pattern, request.fixPathParameter(name, to: value) { return }
            request.gap(
                .dropped,
                ["request", "pathParameters", .key(name)],
                "\(pattern.description) on {\(name)} has no native form: any segment matches"
            )
        case .body(let pattern, let index):
            encodeBody(pattern, ["request", "bodyPatterns", .index(index)], into: &request)
        case .multipart(let pattern, let index):
            request.gap(
                .dropped,
                ["request", "multipartPatterns", .index(index)],
                """
                \(pattern.description) has no native form (the stub format's multipart matcher reads \
                form fields and files by name): the parts are not checked
                """
            )
        case .basicAuth(let username, let password):
            let credentials = "Basic " + Base64.encode(Array("\(username):\(password)".utf8))
            if request.addHeader("Authorization", .string(credentials)) { return }
            request.gap(
                .dropped,
                ["request", "basicAuthCredentials"],
                "the stub already checks Authorization; the credentials are not checked"
            )
        case .host(let pattern):
            if let matcher = Self.hostMatcher(pattern) {
                request.host = matcher
            } else {
                request.gap(.dropped, ["request", "host"], "\(pattern.description) has no native form")
            }
        case .port(let port):
            request.gap(.dropped, ["request", "port"], "port \(port) is not checked")
        case .clientIp:
            request.gap(.dropped, ["request", "clientIp"], "the client's address is not checked")
        case .never(let why, let place):
            request.gap(.dropped, place, "\(why); the stub does not check it")
        }
    }

    /// A path written as sent: none when no request can carry it (a gap that skips the mapping).
    private static func encodeRawPath(_ rawPath: String, _ key: String, into request: inout EncodedRequest) -> Bool {
        guard PercentDecoding.decode(rawPath, strict: true) != nil else {
            request.gap(
                .skipped,
                ["request", .key(key)],
                """
                the path has a '%' not followed by two hex digits; no request can carry it (the server answers \
                400), so the mapping is not imported
                """
            )
            return false
        }
        // Dot segments (clients remove them before sending): the path as a pattern of itself.
        request.pathPattern = PathTemplate.escapeRegex(PercentDecoding.decodeLenient(rawPath))
        return true
    }

    private func encodeURLPattern(_ pattern: ContentPattern, into request: inout EncodedRequest) {
        guard case .matches(let regex) = pattern else {
            request.gap(.dropped, ["request", "urlPattern"], "\(pattern.description) has no native form")
            return
        }
        let source = regex.pattern
        if let (path, query) = Self.splitAtQuery(source) {
            // `P\?Q` over path and query: P over the path, Q over the query.
            request.pathPattern = path
            request.rawQuery = .object([("matches", .string(query))])
        } else {
            request.pathPattern = source
            request.gap(
                .approximated,
                ["request", "urlPattern"],
                "urlPattern matched path and query; the pathPattern matches the path only"
            )
        }
    }

    /// A pattern as the part before its `\?` and the part after, when that `\?` stands outside
    /// every group and class, no `|` does, and both parts compile: nil otherwise.
    static func splitAtQuery(_ source: String) -> (path: String, query: String)? {
        let scalars = Array(source.unicodeScalars)
        var depth = 0
        var inClass = false
        var split: Int?
        var i = 0
        while i < scalars.count {
            switch scalars[i] {
            case "\\":
                if !inClass, depth == 0, split == nil, i + 1 < scalars.count, scalars[i + 1] == "?" { split = i }
                i += 1
            case "[": inClass = true
            case "]": inClass = false
            case "(" where !inClass: depth += 1
            case ")" where !inClass: depth -= 1
            case "|" where !inClass && depth == 0: return nil
            default: break
            }
            i += 1
        }
        guard let split else { return nil }
        var path = String.UnicodeScalarView(scalars[..<split])
        let query = String(String.UnicodeScalarView(scalars[(split + 2)...]))
        if path.first == "^" { path.removeFirst() }
        let pathText = String(path)
        guard (try? CompiledRegex(pathText)) != nil, (try? CompiledRegex(query)) != nil else { return nil }
        return (pathText, query)
    }

    private func encodeHeader(_ name: String, _ pattern: MultiValuePattern, into request: inout EncodedRequest) {
        let place: [DefinitionStep] = ["request", "headers", .key(name)]
        // WireMock takes any name; no request can carry one that is not a token, and the stub
        // format refuses it, so the whole folder would fail to load.
        guard HTTPToken.isToken(name) else {
            request.gap(
                .dropped,
                place,
                "\"\(name)\" is not a valid header name, so no request carries it; the condition is not written"
            )
            return
        }
        guard let matcher = Self.matcher(pattern) else {
            request.gap(.dropped, place, "\(pattern.description) has no native form: the header is not checked")
            return
        }
        if !request.addHeader(name, matcher) {
            request.gap(.dropped, place, "the stub already checks \(name); \(pattern.description) is not checked")
        }
    }

    private func encodeCookie(_ name: String, _ pattern: MultiValuePattern, into request: inout EncodedRequest) {
        let place: [DefinitionStep] = ["request", "cookies", .key(name)]
        guard case .single(.equalTo(let value, false)) = pattern else {
            request.gap(.dropped, place, "\(pattern.description) on a cookie has no native form")
            return
        }
        if request.addHeader("Cookie", .object([("contains", .string("\(name)=\(value)"))])) {
            request.gap(.approximated, place, "the cookie is checked as Cookie containing \(name)=\(value)")
        } else {
            request.gap(.dropped, place, "the stub checks Cookie for one cookie only; \(name) is not checked")
        }
    }

    private func encodeBody(_ pattern: ContentPattern, _ place: [DefinitionStep], into request: inout EncodedRequest) {
        guard !request.hasBody else {
            request.gap(.dropped, place, "a native stub has one body condition; \(pattern.description) is not checked")
            return
        }
        switch pattern {
        case .equalTo(let s, let ci):
            request.body =
                ci
                ? .object([("equals", .string(s)), ("caseInsensitive", .bool(true))])
                : .object([("equals", .string(s))])
        case .contains(let s): request.body = .object([("contains", .string(s))])
        case .matches(let r): request.body = .object([("matches", .string(r.pattern))])
        case .equalToJson(let expected, let ignoreOrder, let ignoreExtra):
            if expected.usesPlaceholders || ignoreOrder {
                request.gap(
                    .dropped,
                    place,
                    """
                    equalToJson with \(ignoreOrder ? "ignoreArrayOrder" : "JsonUnit placeholders") has no \
                    native form: the body is not checked
                    """
                )
            } else if ignoreExtra {
                request.body = .object([("json", expected.source)])
                request.gap(
                    .approximated,
                    place,
                    """
                    ignoreExtraElements becomes a \"json\" (subset) condition: extra object keys are \
                    allowed, extra array items are not
                    """
                )
            } else {
                request.body = .object([("jsonEquals", expected.source)])
            }
        default:
            request.gap(.dropped, place, "\(pattern.description) has no native form: the body is not checked")
        }
    }

    /// The native matcher for a name's pattern: one pattern, or `includes` of one.
    private static func matcher(_ pattern: MultiValuePattern) -> JSONNode? {
        switch pattern {
        case .single(let p): return matcher(p)
        case .includes(let ps) where ps.count == 1: return matcher(ps[0])
        default: return nil
        }
    }

    /// A native string matcher for a WireMock one, when there is one. A case-insensitive
    /// `equalTo` holds its operand lowercased (`ContentPattern.matches`).
    private static func matcher(_ p: ContentPattern) -> JSONNode? {
        switch p {
        case .equalTo(let s, let ci):
            return ci ? .object([("equals", .string(s)), ("caseInsensitive", .bool(true))]) : .string(s)
        case .contains(let s): return .object([("contains", .string(s))])
        case .matches(let r): return .object([("matches", .string(r.pattern))])
        case .absent: return .object([("absent", .bool(true))])
        case .not(.absent): return .object([("present", .bool(true))])
        default: return nil
        }
    }

    /// The host: served, the request's host is lowercased before the pattern sees it, so an
    /// `equalTo` or `contains` is written ignoring case.
    private static func hostMatcher(_ p: ContentPattern) -> JSONNode? {
        switch p {
        case .equalTo(let s, _) where s == s.lowercased():
            return .object([("equals", .string(s)), ("caseInsensitive", .bool(true))])
        case .contains(let s) where s == s.lowercased():
            return .object([("contains", .string(s)), ("caseInsensitive", .bool(true))])
        case .equalTo, .contains: return nil
        default: return matcher(p)
        }
    }
}
