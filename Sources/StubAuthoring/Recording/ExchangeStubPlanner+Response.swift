import HTTP1
import JSON
import StubEngine

extension ExchangeStubPlanner {
    /// One recorded answer as a stub response: status, the fields a stub may carry, the body
    /// inline or in a file. `saveBody` stores a body file and returns its path (relative to the
    /// stub file).
    mutating func response(
        _ exchange: RecordedExchange,
        sessions: SessionCookies,
        saveBody: ([UInt8], String) -> String
    ) -> JSONNode {
        var members: [(String, JSONNode)] = [("status", .number(exchange.status))]
        let (body, fields, stillEncoded) = Self.decoded(exchange)
        // A body or field holding `{{` would be read as a template too: then links stay as they are.
        let mayTemplate = !Self.containsBraces(body) && !fields.contains { $0.value.contains("{{") }
        var templated = false
        var headers: [(name: String, values: [String])] = []
        for field in fields {
            var value = field.value
            let isSetCookie = asciiCaseInsensitiveEquals(field.name, "Set-Cookie")
            switch RecordedFields.verdict(field.name, field.value, keepSecrets: keepSecrets, kept: keptHeaders) {
            case .keep:
                if isSetCookie, let rewritten = sessions.rewrite(setCookie: value) { value = rewritten }
            case .secret:
                // A session cookie is written with a stand-in value; other secrets not at all.
                guard isSetCookie, let rewritten = sessions.rewrite(setCookie: value) else {
                    droppedSecrets[field.name.lowercased(), default: 0] += 1
                    continue
                }
                value = rewritten
            case .volatile, .invalid:
                continue
            }
            if mayTemplate, ServerLinks.fields.contains(field.name.lowercased()),
                let rewritten = ServerLinks.rewrite(value, prefixes: exchange.serverURLs)
            {
                value = rewritten
                templated = true
            }
            if let i = headers.firstIndex(where: { asciiCaseInsensitiveEquals($0.name, field.name) }) {
                headers[i].values.append(value)
            } else {
                headers.append((field.name, [value]))
            }
        }
        if !headers.isEmpty {
            members.append(
                (
                    "headers",
                    .object(
                        headers.map { header in
                            let values = header.values
                            return (
                                header.name,
                                values.count == 1 ? .string(values[0]) : .array(values.map(JSONNode.string))
                            )
                        }
                    )
                )
            )
        }
        let contentType =
            fields.first { asciiCaseInsensitiveEquals($0.name, "Content-Type") }?.value ?? exchange.declaredContentType
        if stillEncoded == nil, let events = Self.recordedEvents(exchange, body: body, contentType: contentType) {
            return .object(members + Self.eventMembers(events))
        }
        if let stillEncoded {
            // Compressed with a coding this cannot undo: the bytes as they came, named for it.
            let ext = RecordedBodies.fileExtension(contentType) + "." + stillEncoded
            members.append(("bodyFile", .string(saveBody(body, ext))))
        } else {
            switch RecordedBodies.placement(body, contentType: contentType) {
            case .none: break
            case .inline(let value): members.append(("body", value))
            case .file(let ext): members.append(("bodyFile", .string(saveBody(body, ext))))
            }
        }
        if templated { members.append(("template", .bool(true))) }
        return .object(members)
    }

    /// The body with its `Content-Encoding` undone and that field left out, so it is written
    /// readable and served as it was meant; when a coding cannot be undone (`br`, damaged
    /// data), the body and fields as they came and the extension naming the coding.
    private static func decoded(
        _ exchange: RecordedExchange
    ) -> (body: [UInt8], fields: [(name: String, value: String)], stillEncoded: String?) {
        let isEncoding = { (field: (name: String, value: String)) in
            asciiCaseInsensitiveEquals(field.name, "Content-Encoding")
        }
        let codings = exchange.headers.filter(isEncoding).flatMap { ContentDecoding.codings($0.value) }
        guard !codings.isEmpty, !exchange.body.isEmpty else { return (exchange.body, exchange.headers, nil) }
        let value = codings.joined(separator: ", ")
        if let body = ContentDecoding.decode(
            exchange.body,
            contentEncoding: value,
            limit: StubLoader.maximumBodyFileBytes
        ) {
            return (body, exchange.headers.filter { !isEncoding($0) }, nil)
        }
        let names = ["gzip": "gz", "x-gzip": "gz", "deflate": "zz", "br": "br", "zstd": "zst", "compress": "z"]
        let ext = codings.map { names[$0] ?? "bin" }.joined(separator: ".")
        return (exchange.body, exchange.headers, ext)
    }

    private static func containsBraces(_ bytes: [UInt8]) -> Bool {
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == UInt8(ascii: "{") && previous == UInt8(ascii: "{") { return true }
            previous = byte
        }
        return false
    }
}
