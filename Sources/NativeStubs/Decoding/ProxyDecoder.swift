import HTTP1
import JSON
import StubEngine

/// `"proxy": {"to": URL, ...}` in a response: this stub's requests go to an upstream.
enum ProxyDecoder {
    static let keys = StubFormat.proxyKeys
    /// A proxied response's status, headers and body come from the upstream.
    static let exclusiveWith = ["status", "headers", "body", "bodyFile", "bodyBase64", "template", "fault", "dribble"]

    static func decodeProxy(
        _ c: inout DecodingContext,
        _ response: JSONNode,
        _ node: JSONNode,
        _ path: String
    ) -> ProxyRule? {
        guard c.checkKeys(node, path, allowed: keys, what: "a proxy rule") else { return nil }
        for key in exclusiveWith where response[key] != nil {
            c.error(
                path.replacingLast(".proxy", with: "." + key),
                response[key],
                """
                a proxied response's \
                \(key == "template" || key == "fault" || key == "dribble" ? key : "status, headers and body") \
                come from the upstream; remove \"\(key)\" or \"proxy\"
                """
            )
        }
        guard let toNode = node["to"] else {
            c.error(
                path,
                node,
                "a proxy rule needs \"to\": the upstream's URL, such as \"https://staging.example.com\""
            )
            return nil
        }
        guard let text = toNode.string, let upstream = UpstreamURL(text) else {
            c.error(
                path + ".to",
                toNode,
                """
                expected an http or https URL without query or userinfo, such as \
                \"https://staging.example.com/api\", found \(toNode.kindDescription)
                """
            )
            return nil
        }
        var rule = ProxyRule(upstream: upstream)
        if let strip = node["stripPrefix"] {
            if let s = strip.string, s.hasPrefix("/") {
                rule.stripPrefix = s
            } else {
                c.error(
                    path + ".stripPrefix",
                    strip,
                    "expected a path prefix starting with \"/\", found \(strip.kindDescription)"
                )
            }
        }
        if let headers = node["headers"] {
            for field in ResponseDecoder.decodeResponseHeaders(&c, headers, path + ".headers")
            where !ServerOwnedFields.isFraming(field.name) {
                rule.setHeaders.append((field.name, field.value))
            }
        }
        if let remove = node["removeHeaders"] {
            if let names = remove.elements?.compactMap(\.string), names.count == remove.elements?.count,
                names.allSatisfy(HTTPToken.isToken)
            {
                rule.removeHeaders = names
            } else {
                c.error(
                    path + ".removeHeaders",
                    remove,
                    "expected an array of header names, found \(remove.kindDescription)"
                )
            }
        }
        if let preserve = node["preserveHost"] {
            if let b = preserve.bool {
                rule.preserveHost = b
            } else {
                c.error(path + ".preserveHost", preserve, "expected true or false, found \(preserve.kindDescription)")
            }
        }
        if let timeout = node["timeoutMs"] {
            if let ms = timeout.wholeNumber, ms >= 1, ms <= 600_000 {
                rule.timeoutMilliseconds = Int64(ms)
            } else {
                c.error(
                    path + ".timeoutMs",
                    timeout,
                    "expected milliseconds from 1 to 600000, found \(timeout.kindDescription)"
                )
            }
        }
        return rule
    }
}

extension String {
    /// `$.response.proxy` → `$.response.status`: a sibling key's path.
    fileprivate func replacingLast(_ suffix: String, with replacement: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + replacement : self + replacement
    }
}
