#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubEngine

/// What a stub answers: status, headers, one body form, delay, fault, dribble, template.
enum ResponseDecoder {
    static let responseKeys = StubFormat.responseKeys

    static func decodeResponse(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String,
        pathParameters: Set<String>
    ) -> StubResponse? {
        guard c.checkKeys(node, path, allowed: Self.responseKeys, what: "the response") else { return nil }
        var status = 200
        if let s = node["status"] {
            if let n = s.wholeNumber, (100...599).contains(n) {
                status = n
            } else {
                c.error(path + ".status", s, "expected an HTTP status from 100 to 599, found \(s.kindDescription)")
            }
        }
        var headers = HeaderFields()
        if let h = node["headers"] { headers = decodeResponseHeaders(&c, h, path + ".headers") }
        if EventsDecoder.streamKeys.contains(where: { node[$0] != nil }) {
            return EventsDecoder.decodeResponse(
                &c,
                node,
                path,
                status: status,
                headers: headers,
                pathParameters: pathParameters
            )
        }

        let bodyForms = ["body", "bodyFile", "bodyBase64"].filter { node[$0] != nil }
        var body: [UInt8] = []
        var defaultContentType: String?
        if bodyForms.count > 1 {
            c.error(
                path + "." + bodyForms[1],
                node[bodyForms[1]],
                "a response has one body: \(bodyForms.joined(separator: " and ")) are both set"
            )
        } else if let b = node["body"] {
            if let s = b.string {
                body = Array(s.utf8)
                defaultContentType = "text/plain; charset=utf-8"
            } else {
                body = JSONSerializer.bytes(b)
                defaultContentType = "application/json"
            }
        } else if let f = node["bodyFile"] {
            if let relative = f.string {
                switch c.bodyFiles.read(relative, from: c.fileURL) {
                case .success(let bytes):
                    body = bytes
                    defaultContentType = ContentTypes.forFileName(relative)
                case .failure(let failure):
                    c.error(path + ".bodyFile", f, failure.message)
                }
            } else {
                c.error(
                    path + ".bodyFile",
                    f,
                    "expected a file path relative to this stub file, found \(f.kindDescription)"
                )
            }
        } else if let b64 = node["bodyBase64"] {
            if let s = b64.string, let data = Data(base64Encoded: s, options: .ignoreUnknownCharacters) {
                body = Array(data)
                defaultContentType = "application/octet-stream"
            } else {
                c.error(path + ".bodyBase64", b64, "expected the body bytes as a base64 string")
            }
        }
        if let defaultContentType, !headers.contains("Content-Type") {
            headers.add("Content-Type", defaultContentType)
        }
        if !body.isEmpty && (status < 200 || status == 204 || status == 304) {
            c.warning(
                path + ".status",
                node["status"]?.position,
                "a \(status) response has no body; the body is not sent"
            )
        }

        let delay = node["delay"].flatMap { decodeDelay(&c, $0, path + ".delay") }
        var fault: Fault?
        if let f = node["fault"] {
            if let s = f.string, let value = Fault(rawValue: s), Fault.native.contains(value) {
                fault = value
            } else {
                c.error(
                    path + ".fault",
                    f,
                    """
                    expected one of \(Fault.native.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), found \
                    \(f.kindDescription)
                    """
                )
            }
        }
        let dribble = node["dribble"].flatMap { decodeDribble(&c, $0, path + ".dribble") }
        if fault != nil, dribble != nil {
            c.error(path + ".dribble", node["dribble"], "a response with a fault sends no body, so it cannot dribble")
        }
        let prepared = PreparedResponse(status: status, headers: headers, body: body)
        var template: ResponseTemplate?
        if let flag = node["template"] {
            if flag.bool == nil {
                c.error(path + ".template", flag, "expected true or false, found \(flag.kindDescription)")
            } else if flag.bool == true {
                template = TemplateCompiler.compileTemplate(
                    &c,
                    node,
                    path,
                    prepared: prepared,
                    pathParameters: pathParameters
                )
            }
        }
        let proxy = node["proxy"].flatMap { ProxyDecoder.decodeProxy(&c, node, $0, path + ".proxy") }
        return StubResponse(
            prepared: prepared,
            delay: delay,
            fault: fault,
            dribble: dribble,
            template: template,
            proxy: proxy
        )
    }

    /// `"template": true`: body and header values become templates, checked now so an unknown
    /// variable is a load error with its JSON path, never an empty string at run time.
    static func decodeResponseHeaders(_ c: inout DecodingContext, _ node: JSONNode, _ path: String) -> HeaderFields {
        var headers = HeaderFields()
        guard let members = node.members else {
            c.error(
                path,
                node,
                "expected an object of header name to value (or to an array of values), found \(node.kindDescription)"
            )
            return headers
        }
        for member in members {
            let memberPath = path + DecodingContext.pathComponent(member.key)
            guard DecodingContext.isToken(member.key) else {
                c.problem(
                    StubProblem(
                        .error,
                        file: c.displayPath,
                        position: member.keyPosition,
                        jsonPath: memberPath,
                        message: "\"\(member.key)\" is not a valid header name"
                    )
                )
                continue
            }
            if ServerOwnedFields.contains(member.key) {
                let why =
                    ServerOwnedFields.isFraming(member.key)
                    ? "the server sets it from the body and the connection state; a stub's value would break framing"
                    : "the server sets it on every response"
                c.warning(memberPath, member.keyPosition, "\(member.key) is dropped: \(why)")
                continue
            }
            let values: [JSONNode] = member.value.elements ?? [member.value]
            for (i, value) in values.enumerated() {
                let valuePath = member.value.elements == nil ? memberPath : "\(memberPath)[\(i)]"
                guard let s = value.string ?? value.number?.text else {
                    c.error(valuePath, value, "expected a header value as a string, found \(value.kindDescription)")
                    continue
                }
                if s.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                    c.error(valuePath, value, "a header value must not contain line breaks or NUL")
                    continue
                }
                headers.add(member.key, s)
            }
        }
        return headers
    }

    static func decodeDelay(_ c: inout DecodingContext, _ node: JSONNode, _ path: String) -> Delay? {
        if let n = node.wholeNumber, n >= 0 { return .fixed(n) }
        if node.members != nil, c.checkKeys(node, path, allowed: StubFormat.delayRangeKeys, what: "a delay range") {
            if let lo = node["min"]?.wholeNumber,
                let hi = node["max"]?.wholeNumber, lo >= 0, lo <= hi
            {
                return .uniform(min: lo, max: hi)
            }
            c.error(
                path,
                node,
                "a delay range needs whole milliseconds with 0 <= min <= max, e.g. {\"min\": 100, \"max\": 800}"
            )
            return nil
        }
        if node.members == nil {
            c.error(
                path,
                node,
                """
                expected milliseconds (a whole number of 0 or more) or {\"min\": 100, \"max\": 800}, found \
                \(node.kindDescription)
                """
            )
        }
        return nil
    }

    static func decodeDribble(_ c: inout DecodingContext, _ node: JSONNode, _ path: String) -> Dribble? {
        guard c.checkKeys(node, path, allowed: StubFormat.dribbleKeys, what: "dribble") else { return nil }
        guard let chunks = node["chunks"]?.wholeNumber, chunks >= 1,
            let duration = node["durationMs"]?.wholeNumber, duration >= 0
        else {
            c.error(
                path,
                node,
                """
                dribble needs \"chunks\" (1 or more) and \"durationMs\" (0 or more), e.g. {\"chunks\": 10, \
                \"durationMs\": 3000}
                """
            )
            return nil
        }
        return Dribble(chunks: chunks, durationMilliseconds: duration)
    }
}
