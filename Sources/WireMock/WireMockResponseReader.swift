#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import Handlebars
import JSON
import StubEngine

/// Reads a mapping's `response`: status and message, headers (one value or several), one body
/// form (`body`, `jsonBody`, `base64Body`, `bodyFileName` relative to `__files`), delays,
/// dribbling, faults, proxying, and whether it is a template.
package enum WireMockResponseReader {
    package static let keys = [
        "status", "statusMessage", "headers", "body", "jsonBody", "base64Body", "bodyFileName",
        "fixedDelayMilliseconds", "delayDistribution", "chunkedDribbleDelay", "fault", "proxyBaseUrl",
        "proxyUrlPrefixToRemove", "additionalProxyRequestHeaders", "removeProxyRequestHeaders",
        "transformers", "transformerParameters", "fromConfiguredStub",
    ]
    package static let unsupported: [String: String] = [:]
    package static let faults: [String: Fault] = [
        "EMPTY_RESPONSE": .empty, "RANDOM_DATA_THEN_CLOSE": .garbage,
        "CONNECTION_RESET_BY_PEER": .reset, "MALFORMED_RESPONSE_CHUNK": .malformedChunk,
    ]
    static let templateTransformer = "response-template"

    static func read(
        _ c: inout WireMockContext,
        _ node: JSONNode,
        _ path: String,
        request: WireMockRequest
    ) -> WireMockResponse? {
        guard c.checkKeys(node, path, supported: keys, unsupported: unsupported, what: "a response") else { return nil }
        var response = WireMockResponse()
        if let s = node["status"] {
            if let n = WireMockScalars.integer(s), (100...599).contains(n) {
                response.status = n
            } else {
                c.error(path + ".status", s, "expected an HTTP status from 100 to 599, found \(s.kindDescription)")
            }
        }
        if let m = node["statusMessage"] {
            if let s = WireMockScalars.string(m), !s.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) {
                response.statusMessage = s
            } else {
                c.error(path + ".statusMessage", m, "expected a reason phrase on one line")
            }
        }
        if let h = node["headers"] { response.headers = headers(&c, h, path + ".headers") }
        response.templated = readTransformers(&c, node, path)
        for key in ["body", "jsonBody", "bodyFileName"] {
            if let n = node[key] { response.positions[key] = n.position }
        }
        for member in node["headers"]?.members ?? [] {
            response.positions["headers" + DocumentProblem.pathComponent(member.key)] = member.value.position
        }
        response.transformerParameters = node["transformerParameters"]
        readBody(&c, node, path, into: &response)
        readDelays(&c, node, path, into: &response)
        if let f = node["fault"] {
            if let s = f.string, let fault = faults[s] {
                response.fault = fault
            } else {
                c.error(path + ".fault", f, "expected one of " + faults.keys.sorted().joined(separator: ", "))
            }
        }
        if let base = node["proxyBaseUrl"] { response.proxy = readProxy(&c, node, base, path) }
        return response
    }

    /// `transformers`: `response-template` turns templating on; others are Java extensions.
    private static func readTransformers(_ c: inout WireMockContext, _ node: JSONNode, _ path: String) -> Bool {
        var templated = c.globalTemplating
        guard let list = node["transformers"] else { return templated }
        guard let names = list.elements else {
            c.error(path + ".transformers", list, "expected an array of transformer names")
            return templated
        }
        for (i, name) in names.enumerated() {
            if name.string == templateTransformer {
                templated = true
                continue
            }
            c.warning(
                "\(path).transformers[\(i)]",
                name.position,
                """
                transformer \(name.string.map { "\"\($0)\"" } ?? name.kindDescription) is not supported (Java \
                extensions are not run); only \"response-template\" is
                """
            )
        }
        return templated
    }

    static func headers(_ c: inout WireMockContext, _ node: JSONNode, _ path: String) -> [(name: String, value: String)]
    {
        guard let members = node.members else {
            c.error(path, node, "expected an object of header name to value (or to an array of values)")
            return []
        }
        var result: [(name: String, value: String)] = []
        for member in members {
            let memberPath = path + DocumentProblem.pathComponent(member.key)
            guard HTTPToken.isToken(member.key) else {
                c.error(memberPath, member.value, "\"\(member.key)\" is not a valid header name")
                continue
            }
            if ServerOwnedFields.isFraming(member.key) {
                c.warning(
                    memberPath,
                    member.keyPosition,
                    "\(member.key) is set by the server from the body; the mapping's value is not sent"
                )
                continue
            }
            for value in member.value.elements ?? [member.value] {
                guard let s = WireMockScalars.string(value) else {
                    c.error(memberPath, value, "expected a header value as a string, found \(value.kindDescription)")
                    continue
                }
                result.append((member.key, s))
            }
        }
        return result
    }

    private static func readBody(
        _ c: inout WireMockContext,
        _ node: JSONNode,
        _ path: String,
        into response: inout WireMockResponse
    ) {
        let forms = ["body", "jsonBody", "base64Body", "bodyFileName"].filter { node[$0] != nil }
        guard forms.count <= 1 else {
            c.error(
                path + "." + forms[1],
                node[forms[1]],
                "a response has one body: \(forms.joined(separator: " and ")) are both set"
            )
            return
        }
        if let b = node["body"] {
            if let s = WireMockScalars.string(b) {
                response.body = .text(s)
            } else {
                c.error(path + ".body", b, "expected a string; for JSON use \"jsonBody\"")
            }
        } else if let j = node["jsonBody"] {
            response.body = .json(j)
        } else if let b = node["base64Body"] {
            if let s = b.string, let data = Data(base64Encoded: s, options: .ignoreUnknownCharacters) {
                response.body = .bytes(Array(data))
            } else {
                c.error(path + ".base64Body", b, "expected the body bytes as a base64 string")
            }
        } else if let f = node["bodyFileName"] {
            guard let name = f.string, !name.isEmpty else {
                c.error(path + ".bodyFileName", f, "expected a file name relative to __files")
                return
            }
            if response.templated, HandlebarsTemplate.hasTags(name) {
                do {
                    let template = try HandlebarsTemplate(name, knownRoots: WireMockTemplating.roots)
                    for warning in template.warnings { c.warning(path + ".bodyFileName", f.position, warning) }
                    c.filesCache.preload()
                    response.body = .templatedFile(template)
                } catch {
                    c.error(path + ".bodyFileName", f, "template: \(error)")
                }
                return
            }
            // Relative to __files: read as if from a file inside it, bounded to the folder.
            let anchor = c.root.appendingPathComponent("__files").appendingPathComponent(".anchor")
            switch c.bodyFiles.read(name.hasPrefix("/") ? String(name.dropFirst()) : name, from: anchor) {
            case .success(let bytes): response.body = .file(name: name, bytes: bytes)
            case .failure(let failure) where failure.isMissing:
                // WireMock loads the mapping and fails the requests it answers (500); so does stubserver.
                let message = failure.message.replacing("bodyFile", with: "bodyFileName")
                c.warning(
                    path + ".bodyFileName",
                    f.position,
                    message
                        + " (body files live in __files/); requests this mapping answers get 500, as with WireMock"
                )
                response.body = .missingFile(name: name)
            case .failure(let failure):
                c.error(
                    path + ".bodyFileName",
                    f,
                    failure.message.replacing("bodyFile", with: "bodyFileName") + " (body files live in __files/)"
                )
            }
        }
    }

    private static func readDelays(
        _ c: inout WireMockContext,
        _ node: JSONNode,
        _ path: String,
        into response: inout WireMockResponse
    ) {
        if let d = node["fixedDelayMilliseconds"] {
            if let n = WireMockScalars.integer(d), (0...600_000).contains(n) {
                response.fixedDelay = n
            } else {
                c.error(path + ".fixedDelayMilliseconds", d, "expected milliseconds from 0 to 600000")
            }
        }
        if let d = node["delayDistribution"] {
            let fixed = response.fixedDelay ?? 0
            response.delayDistribution = delayDistribution(&c, d, path + ".delayDistribution", plus: fixed)
        }
        if let d = node["chunkedDribbleDelay"] {
            if let chunks = d["numberOfChunks"].flatMap(WireMockScalars.integer), chunks >= 1,
                let duration = d["totalDuration"].flatMap(WireMockScalars.integer), (0...600_000).contains(duration)
            {
                response.dribble = Dribble(chunks: chunks, durationMilliseconds: duration)
            } else {
                c.error(
                    path + ".chunkedDribbleDelay",
                    d,
                    "expected {\"numberOfChunks\": 1 or more, \"totalDuration\": milliseconds}"
                )
            }
        }
    }

    /// A `delayDistribution` (a response's, or a webhook's `delay`): `uniform`, `lognormal` or
    /// `fixed`, with `plus` milliseconds added (a response's `fixedDelayMilliseconds`).
    static func delayDistribution(
        _ c: inout WireMockContext,
        _ d: JSONNode,
        _ path: String,
        plus fixed: Int
    ) -> Delay? {
        let int: (String) -> Int? = { key in
            d[key].flatMap(WireMockScalars.integer).flatMap { (0...600_000).contains($0) ? $0 : nil }
        }
        switch d["type"]?.string {
        case "uniform"?:
            if let lower = int("lower"), let upper = int("upper"), lower <= upper {
                return .uniform(min: lower + fixed, max: upper + fixed)
            }
            c.error(path, d, "a uniform delay needs \"lower\" <= \"upper\", whole milliseconds")
        case "lognormal"?:
            if let median = int("median"), let sigma = d["sigma"].flatMap(WireMockScalars.number), sigma >= 0,
                sigma <= 10
            {
                let cap = d["maxValue"].flatMap(WireMockScalars.integer)
                return .logNormal(median: median, sigma: sigma, max: cap, plus: fixed)
            }
            c.error(path, d, "a lognormal delay needs \"median\" (milliseconds) and \"sigma\" (0 to 10)")
        case "fixed"?:
            if let ms = int("milliseconds") { return .fixed(ms + fixed) }
            c.error(path, d, "a fixed delay needs \"milliseconds\"")
        default:
            c.error(path + ".type", d["type"] ?? d, "expected \"uniform\", \"lognormal\" or \"fixed\"")
        }
        return nil
    }

    private static func readProxy(
        _ c: inout WireMockContext,
        _ node: JSONNode,
        _ base: JSONNode,
        _ path: String
    ) -> ProxyRule? {
        guard let text = base.string, let upstream = UpstreamURL(text) else {
            c.error(
                path + ".proxyBaseUrl",
                base,
                "expected an http or https URL without query, such as \"https://api.example.com\""
            )
            return nil
        }
        var rule = ProxyRule(upstream: upstream)
        if let prefix = node["proxyUrlPrefixToRemove"] {
            if let s = prefix.string, s.hasPrefix("/") {
                rule.stripPrefix = s
            } else {
                c.error(path + ".proxyUrlPrefixToRemove", prefix, "expected a path prefix starting with \"/\"")
            }
        }
        if let add = node["additionalProxyRequestHeaders"] {
            rule.setHeaders = headers(&c, add, path + ".additionalProxyRequestHeaders")
        }
        if let remove = node["removeProxyRequestHeaders"] {
            if let names = remove.elements?.compactMap(\.string), names.count == remove.elements?.count {
                rule.removeHeaders = names
            } else {
                c.error(path + ".removeProxyRequestHeaders", remove, "expected an array of header names")
            }
        }
        for key in ["body", "jsonBody", "base64Body", "bodyFileName", "fault"] where node[key] != nil {
            c.warning(
                path + "." + key,
                node[key]?.position,
                "a proxied response comes from \(text); \"\(key)\" is not used"
            )
        }
        return rule
    }
}
