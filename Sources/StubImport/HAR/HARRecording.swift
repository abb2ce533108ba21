#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import StubAuthoring
import StubEngine

/// One entry ready to become a stub: the request as the server will see it (path and query
/// decoded by the server's own target parser), and the response as it was on the wire.
struct HARRecording {
    let method: String
    let path: String
    /// Each query parameter's first value, in order; parameters without a name are left out.
    let query: [(name: String, value: String)]
    let requestBody: (mimeType: String, text: String)?
    let status: Int
    /// The response's fields less `Content-Encoding` (the planner decides what a stub keeps).
    let headers: [(name: String, value: String)]
    let body: [UInt8]
    let contentType: String
    let requestCookies: [(name: String, value: String)]
    /// The entry's own origin: links to it lead back to the stub server on replay.
    let serverURLs: [(absolute: String, path: String)]

    /// The entry as the one planner of captured traffic takes it (`ExchangeStubPlanner`).
    var exchange: RecordedExchange {
        RecordedExchange(
            method: method,
            path: path,
            query: query,
            requestBody: Array((requestBody?.text ?? "").utf8),
            requestContentType: requestBody?.mimeType ?? "",
            status: status,
            headers: headers,
            body: body,
            requestCookies: requestCookies,
            serverURLs: serverURLs,
            declaredContentType: contentType
        )
    }

    static func make(_ entry: HAREntry, options: HARImportOptions) -> Result<HARRecording, ImportFailure> {
        let url = entry.url
        let lowered = url.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            return .failure(ImportFailure("not an http(s) URL (\(url.prefix(20))...)"))
        }
        if !options.hosts.isEmpty {
            let host = Self.host(of: url)
            guard options.hosts.contains(where: { $0.lowercased() == host }) else {
                return .failure(ImportFailure("another host (not --host)"))
            }
        }
        guard HTTPToken.isToken(entry.method) else {
            return .failure(ImportFailure("the method is not an HTTP method"))
        }
        if entry.method == "CONNECT" {
            return .failure(ImportFailure("CONNECT (a proxy tunnel, not a request to the API)"))
        }
        switch entry.status {
        case 0: return .failure(ImportFailure("status 0 (no response: blocked, cancelled or failed)"))
        case 100...199: return .failure(ImportFailure("informational status (a stub answers with a final status)"))
        case 200...599: break
        default: return .failure(ImportFailure("status \(entry.status) is not an HTTP status"))
        }
        let request: IncomingRequest
        do {
            request = try IncomingRequest.make(
                method: entry.method,
                target: url,
                headers: HeaderFields(),
                body: [],
                peer: "",
                authority: nil
            )
        } catch {
            return .failure(ImportFailure("the URL is not one the server can parse"))
        }
        if request.path == "/__admin" || request.path.hasPrefix("/__admin/") {
            return .failure(ImportFailure("path under /__admin/ (stubserver's admin API)"))
        }
        var body: [UInt8] = []
        // No body reaches the client in these, whatever the tool stored.
        let bodiless = entry.method == "HEAD" || entry.status == 204 || entry.status == 304
        if !bodiless {
            if let text = entry.text {
                if entry.encoding?.lowercased() == "base64" {
                    guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                        return .failure(ImportFailure("the base64 body does not decode"))
                    }
                    body = Array(data)
                } else {
                    body = Array(text.utf8)
                }
            } else if entry.size != 0 {
                return .failure(ImportFailure("response body not recorded (the tool saved no content text)"))
            }
        }
        // The loader refuses a body file over its limit, and one such entry once made the whole
        // import fail with nothing written: it is skipped and listed instead.
        if body.count > StubLoader.maximumBodyFileBytes {
            let limit = StubLoader.maximumBodyFileBytes >> 20
            return .failure(ImportFailure("response body over the \(limit) MiB a body file may hold"))
        }
        // A HAR holds the decoded body, so a `Content-Encoding: gzip` field would be a lie.
        let headers = entry.responseHeaders.filter { !asciiCaseInsensitiveEquals($0.name, "Content-Encoding") }
        let contentType =
            headers.first { asciiCaseInsensitiveEquals($0.name, "Content-Type") }?.value ?? entry.mimeType ?? ""
        return .success(
            HARRecording(
                method: entry.method,
                path: request.path,
                query: RecordedExchange.query(of: request),
                requestBody: entry.requestBody,
                status: entry.status,
                headers: headers,
                body: body,
                contentType: contentType,
                requestCookies: RecordedExchange.cookies(entry.requestCookieFields),
                serverURLs: Self.origins(of: url).map { ($0, "") }
            )
        )
    }

    /// The prefixes that lead to an absolute URL's origin (scheme and authority, without user
    /// information).
    static func origins(of url: String) -> [String] {
        guard let separator = url.firstRange(of: "://") else { return [] }
        let scheme = String(url[..<separator.lowerBound])
        let authority = url[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostPort = authority.split(separator: "@").last ?? authority
        return hostPort.isEmpty ? [] : ServerLinks.variants(scheme: scheme, authority: String(hostPort))
    }

    /// The lower-cased host of an absolute URL, without port or user information.
    static func host(of url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostPort = authority.split(separator: "@").last ?? authority
        if hostPort.hasPrefix("["), let close = hostPort.firstIndex(of: "]") {
            return String(hostPort[...close]).lowercased()
        }
        return String(hostPort.split(separator: ":").first ?? "").lowercased()
    }
}
