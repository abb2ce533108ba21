#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON

/// What changes between the client and the upstream, both ways (docs/proxy.md):
/// - hop-by-hop fields go (`Connection` and the names it lists, `Keep-Alive`, `Proxy-*`, `TE`,
///   `Trailer`, `Transfer-Encoding`, `Upgrade`); the framing is each side's own;
/// - `Host` becomes the upstream's authority unless the rule preserves it;
/// - `X-Forwarded-For` (appended to), `X-Forwarded-Proto` and `X-Forwarded-Host` are added;
/// - `Expect` goes: the server has answered `100 Continue` and read the body already;
/// - everything else, repeated fields and the casing of names included, passes as it came; no
///   cookie jar, no decompression, redirects not followed (a 3xx goes back as it came).
package enum ForwardingRules {
    static let hopByHop = ["Connection", "Keep-Alive", "TE", "Trailer", "Transfer-Encoding", "Upgrade"]

    /// True for a field that belongs to one connection, not to the message. Every field of
    /// every forwarded message passes here, so most names are ruled out by length alone.
    static func isHopByHop(_ name: String, listedIn connection: [String]) -> Bool {
        switch name.utf8.count {
        case 2, 7, 10, 17:
            if hopByHop.contains(where: { asciiCaseInsensitiveEquals($0, name) }) { return true }
        default:
            break
        }
        if name.utf8.count > 6, name.utf8.first.map({ $0 | 0x20 }) == UInt8(ascii: "p"),
            asciiCaseInsensitiveEquals(String(name.utf8.prefix(6))!, "proxy-")
        {
            return true
        }
        return !connection.isEmpty && connection.contains { asciiCaseInsensitiveEquals($0, name) }
    }

    /// Names the `Connection` fields list (they are hop-by-hop too); `keep-alive` and `close`,
    /// the usual values, name fields that are dropped anyway.
    static func listedInConnection(_ headers: HeaderFields) -> [String] {
        var names: [String] = []
        for name in headers.listElements("Connection") where !name.isEmpty {
            if asciiCaseInsensitiveEquals(name, "keep-alive") || asciiCaseInsensitiveEquals(name, "close") { continue }
            names.append(String(name))
        }
        return names
    }

    package static func request(_ request: IncomingRequest, rule: ProxyRule) -> ForwardedRequest {
        let listed = listedInConnection(request.headers)
        var headers = HeaderFields(capacity: request.headers.count + 4 + rule.setHeaders.count)
        for field in request.headers where !isHopByHop(field.name, listedIn: listed) {
            if asciiCaseInsensitiveEquals(field.name, "Host") && !rule.preserveHost { continue }
            if asciiCaseInsensitiveEquals(field.name, "Content-Length")
                || asciiCaseInsensitiveEquals(field.name, "Expect")
            {
                continue
            }
            if rule.removeHeaders.contains(where: { asciiCaseInsensitiveEquals($0, field.name) }) { continue }
            headers.add(field.name, field.value)
        }
        if !rule.preserveHost { headers.add("Host", rule.upstream.authority) }
        let client = Self.clientAddress(request.peer)
        if let previous = headers["X-Forwarded-For"] {
            headers.set("X-Forwarded-For", client.isEmpty ? previous : "\(previous), \(client)")
        } else if !client.isEmpty {
            headers.add("X-Forwarded-For", client)
        }
        if !headers.contains("X-Forwarded-Proto") { headers.add("X-Forwarded-Proto", "http") }
        if !headers.contains("X-Forwarded-Host"), let host = request.headers["Host"] {
            headers.add("X-Forwarded-Host", host)
        }
        for (name, value) in rule.setHeaders { headers.set(name, value) }
        let upgrade = webSocketUpgrade(request)
        if let upgrade {
            headers.add("Connection", "Upgrade")
            headers.add("Upgrade", upgrade)
            headers.remove("Sec-WebSocket-Extensions")
        }
        return ForwardedRequest(
            upstream: rule.upstream,
            method: request.method,
            target: target(request, rule: rule),
            headers: headers,
            body: request.body,
            timeoutMilliseconds: rule.timeoutMilliseconds,
            upgrade: upgrade != nil
        )
    }

    /// The `Upgrade` value to send on when the client asks for a WebSocket (a GET with
    /// `Upgrade: websocket` and `Connection: Upgrade`): the one upgrade the proxy carries. Any
    /// other upgrade (h2c) is dropped as hop-by-hop and the request goes as a plain one.
    /// `Sec-WebSocket-Extensions` is not sent on: with no extension agreed (permessage-deflate
    /// would compress every frame), the frames the journal and the recorder read are the
    /// messages themselves, and the two ends never see a difference but the compression.
    static func webSocketUpgrade(_ request: IncomingRequest) -> String? {
        // `Upgrade` first: most requests have none, and then one scan of the fields decides.
        guard request.method == "GET",
            request.headers.listElements("Upgrade").contains(where: { asciiCaseInsensitiveEquals($0, "websocket") }),
            request.headers.listElements("Connection").contains(where: { asciiCaseInsensitiveEquals($0, "upgrade") })
        else { return nil }
        return "websocket"
    }

    /// The base path, then the request's target as sent (percent-encoding kept), less the
    /// stripped prefix.
    static func target(_ request: IncomingRequest, rule: ProxyRule) -> String {
        var target = request.target
        if target.hasPrefix("http://") || target.hasPrefix("https://") {
            // Absolute-form: the path and query only.
            let afterScheme = target.drop { $0 != "/" }.dropFirst(2)
            target = String(afterScheme.drop { $0 != "/" && $0 != "?" })
            if !target.hasPrefix("/") { target = "/" + target }
        }
        if let prefix = rule.stripPrefix, !prefix.isEmpty, target.hasPrefix(prefix) {
            let rest = target.dropFirst(prefix.count)
            if rest.isEmpty || rest.hasPrefix("/") || rest.hasPrefix("?") {
                target = rest.hasPrefix("/") ? String(rest) : "/" + rest
            }
        }
        return rule.upstream.basePath + target
    }

    /// `127.0.0.1:5000` → `127.0.0.1`; `[::1]:5000` → `::1`.
    static func clientAddress(_ peer: String) -> String {
        // By bytes (the utf8 view shares String's indices): Character searches showed in the profile.
        let bytes = peer.utf8
        if bytes.first == UInt8(ascii: "["), let close = bytes.firstIndex(of: UInt8(ascii: "]")) {
            return String(peer[peer.index(after: peer.startIndex)..<close])
        }
        if let colon = bytes.lastIndex(of: UInt8(ascii: ":")), bytes.firstIndex(of: UInt8(ascii: ":")) == colon {
            return String(peer[..<colon])
        }
        return peer
    }

    /// The upstream's response for the client: hop-by-hop fields dropped, the rest (Date and
    /// Server included) as they came. `bodyLength` frames the body sent on (nil: chunked).
    package static func response(
        status: Int,
        reason: String,
        headers upstream: HeaderFields,
        bodyLength: Int?
    ) -> PreparedResponse {
        PreparedResponse(
            status: status,
            reason: reason.isEmpty ? nil : reason,
            headers: responseHeaders(upstream),
            streamLength: bodyLength,
            keepingDateAndServer: true
        )
    }

    /// The same, for a body that arrived whole: framed by its length.
    package static func response(
        status: Int,
        reason: String,
        headers upstream: HeaderFields,
        body: [UInt8]
    ) -> PreparedResponse {
        PreparedResponse(
            status: status,
            reason: reason.isEmpty ? nil : reason,
            headers: responseHeaders(upstream),
            body: body,
            keepingDateAndServer: true
        )
    }

    package static func responseHeaders(_ upstream: HeaderFields) -> HeaderFields {
        let listed = listedInConnection(upstream)
        var headers = HeaderFields(capacity: upstream.count + 1)
        for field in upstream where !isHopByHop(field.name, listedIn: listed) {
            if asciiCaseInsensitiveEquals(field.name, "Content-Length") { continue }
            headers.add(field.name, field.value)
        }
        // RFC 9110 §6.6.1: a recipient with a clock adds the Date a response lacks when it
        // forwards it.
        if !headers.contains("Date") {
            headers.add("Date", DateFormats.imfFixdate(epochSeconds: Int(Date().timeIntervalSince1970)))
        }
        return headers
    }

    /// `502` (nothing usable came back) or `504` (nothing came back in time), with a JSON body
    /// naming the upstream and why.
    package static func failure(status: Int, upstream: UpstreamURL, reason: String) -> OutgoingResponse {
        let body = JSONNode.object([
            (
                "error",
                .string(
                    status == 504
                        ? "the upstream did not answer in time" : "the upstream could not be reached or answered badly"
                )
            ),
            ("upstream", .string(upstream.description)),
            ("reason", .string(reason)),
        ])
        var headers = HeaderFields()
        headers.add("Content-Type", "application/json")
        headers.add("X-Stubserver-Proxy", "error")
        return OutgoingResponse(status: status, headers: headers, body: JSONSerializer.bytes(body))
    }
}
