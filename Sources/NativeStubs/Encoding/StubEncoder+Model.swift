#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubEngine
import SystemSupport

/// Compiled stubs written back as stub objects: the native parts by the encoder, a dialect's
/// conditions, renderers and webhooks by themselves (`RequestCondition.encode`,
/// `ResponseRenderer.encode`, `WebhookRenderer.encode`), with a gap for all the stub format
/// cannot say. An import compiles what it reads into stubs, as serving does, and writes them
/// from here: one translation, so what the stub files answer is what the folder answered.
extension StubEncoder {
    package struct ModelEncoding {
        /// The stub object; nil when a gap of kind `skipped` says it cannot be written.
        package var node: JSONNode?
        package var gaps: [EncodingGap]
        /// How the written stub ranks among stubs of its priority when loaded (the more specific
        /// first; ties go to file order): a dialect that breaks ties otherwise compares these.
        package var rank: StubRank?
    }

    /// Where the parts the engine models for a dialect (a reason phrase, a lognormal delay, a
    /// fault with no native name, a scenario matched in any state) were written in the stub's
    /// definition, for the gaps about them.
    package struct Places: Sendable {
        package var reason: [DefinitionStep] = ["response", "reason"]
        package var delay: [DefinitionStep] = ["response", "delay"]
        package var fault: [DefinitionStep] = ["response", "fault"]
        package var scenario: [DefinitionStep] = ["scenario"]

        package init() {}
    }

    /// `bodyFile` is asked, for each body written from bytes, for the path of a body file holding
    /// them (relative to the stub file); nil writes the bytes inline.
    package static func encodeModel(
        _ stub: Stub,
        places: Places = Places(),
        bodyFile: ([UInt8]) -> String? = { _ in nil }
    ) -> ModelEncoding {
        var request = EncodedRequest()
        request.methods = stub.request.methods
        encodePath(stub.request.path, into: &request)
        request.host = stub.request.host.map(EncodedRequest.matcher)
        for (name, matcher) in stub.request.query { _ = request.addQuery(name, EncodedRequest.matcher(matcher)) }
        for (name, matcher) in stub.request.headers { _ = request.addHeader(name, EncodedRequest.matcher(matcher)) }
        if let body = stub.request.body { encodeBody(body, into: &request) }
        for condition in stub.request.conditions { condition.encode(into: &request) }
        var gaps = request.gaps
        guard !gaps.contains(where: { $0.kind == .skipped }) else { return ModelEncoding(node: nil, gaps: gaps) }

        var members: [(String, JSONNode)] = [("name", .string(stub.name))]
        if stub.priority != 5 { members.append(("priority", .number(stub.priority))) }
        members.append(("request", request.node))
        let pathVariables = request.pathVariables
        let responses = stub.responses.map { response in
            encodeResponse(response, pathVariables, places, &gaps, bodyFile)
        }
        if responses.count == 1 {
            members.append(("response", responses[0]))
        } else {
            members.append(("responses", .array(responses)))
            if stub.afterLast == .cycle { members.append(("after", .string("cycle"))) }
        }
        if let rule = stub.scenario {
            var scenario: [(String, JSONNode)] = [("name", .string(rule.name))]
            if let when = rule.when {
                scenario.append(("when", .string(when)))
            } else {
                scenario.append(("when", .string(ScenarioRule.initialState)))
                gaps.append(
                    EncodingGap(
                        .approximated,
                        places.scenario,
                        """
                        a stub matched in any state of its scenario has no native form; it is matched in \
                        \"\(ScenarioRule.initialState)\"
                        """
                    )
                )
            }
            if let then = rule.then { scenario.append(("then", .string(then))) }
            members.append(("scenario", .object(scenario)))
        }
        let webhooks = stub.webhooks.compactMap { webhook in
            encodeWebhook(webhook, pathVariables, &gaps)
        }
        if !webhooks.isEmpty { members.append(("webhooks", .array(webhooks))) }
        return ModelEncoding(node: .object(members), gaps: gaps, rank: rank(of: request, priority: stub.priority))
    }

    /// The rank the loader gives the stub `request` is written for (`StubRank`, without its order).
    private static func rank(of request: EncodedRequest, priority: Int) -> StubRank {
        var pathClass = 0
        var literalSegments = 0
        if request.pathPattern != nil {
            pathClass = 1
        } else if let segments = request.pathSegments {
            let literals = segments.filter { !["*", "**"].contains($0) && !($0.hasPrefix("{") && $0.hasSuffix("}")) }
            literalSegments = literals.count
            pathClass =
                literals.count == segments.count ? 5 : segments.contains("**") ? 2 : segments.contains("*") ? 3 : 4
        }
        let conditions =
            (request.methods == nil ? 0 : 1) + (request.hasPath ? 1 : 0) + (request.host == nil ? 0 : 1)
            + request.query.count + request.headers.count + (request.hasBody ? 1 : 0)
            + (request.rawQuery == nil ? 0 : 1)
        return StubRank(
            priority: priority,
            pathClass: pathClass,
            literalSegments: literalSegments,
            conditions: conditions,
            isRuntime: false,
            order: 0
        )
    }

    private static func encodePath(_ path: PathPattern?, into request: inout EncodedRequest) {
        guard let path else { return }
        if case .regex(let regex) = path.kind {
            request.pathPattern = regex.pattern
            return
        }
        request.pathSegments = path.segmentList.map { segment in
            switch segment {
            case .literal(let text): EncodedRequest.segment(text)
            case .parameter(let name): "{\(name)}"
            case .wildcard: "*"
            case .rest: "**"
            }
        }
    }

    private static func encodeBody(_ body: BodyMatcher, into request: inout EncodedRequest) {
        switch body {
        case .jsonEquals(let node): request.body = .object([("jsonEquals", node)])
        case .text(let matcher):
            let written = EncodedRequest.matcher(matcher)
            request.body = written.members == nil ? .object([("equals", written)]) : written
        case .form(let fields):
            for (name, matcher) in fields { _ = request.addFormField(name, EncodedRequest.matcher(matcher)) }
        case .json, .jsonPointer, .multipart:
            request.gap(.dropped, ["request", "body"], "\(body.description) is not written")
        }
    }

    private static func encodeResponse(
        _ response: StubResponse,
        _ pathVariables: EncodedPathVariables,
        _ places: Places,
        _ gaps: inout [EncodingGap],
        _ bodyFile: ([UInt8]) -> String?
    ) -> JSONNode {
        if let proxy = response.proxy { return .object([("proxy", encodeProxy(proxy))]) }
        if response.computed != nil || response.stream != nil {
            gaps.append(EncodingGap(.dropped, ["response"], "a computed or streamed answer is not written"))
        }
        let prepared = response.prepared
        if let reason = reasonPhrase(prepared), reason != HTTPStatus.reason(prepared.status) {
            gaps.append(
                EncodingGap(
                    .dropped,
                    places.reason,
                    "the stub format has no reason phrase; the status's usual one is sent"
                )
            )
        }
        var encoded = EncodedResponse(
            status: prepared.status,
            headers: prepared.headers.fields,
            body: .bytes(prepared.body),
            pathVariables: pathVariables
        )
        response.template?.encode(into: &encoded)
        gaps += encoded.gaps
        var members: [(String, JSONNode)] = []
        if encoded.status != 200 { members.append(("status", .number(encoded.status))) }
        var headers: [(String, JSONNode)] = []
        for name in encoded.headers.map(\.name).reduce(into: [String](), { if !$0.contains($1) { $0.append($1) } }) {
            let values = encoded.headers.filter { $0.name == name }.map { JSONNode.string($0.value) }
            headers.append((name, values.count == 1 ? values[0] : .array(values)))
        }
        if !headers.isEmpty { members.append(("headers", .object(headers))) }
        if response.fault == nil {
            switch encoded.body {
            case .text(let text): members.append(("body", .string(text)))
            case .json(let node): members.append(("body", node))
            case .bytes(let bytes): if let body = placeBody(bytes, bodyFile) { members.append(body) }
            }
            if encoded.templated { members.append(("template", .bool(true))) }
        }
        if let delay = response.delay { members.append(("delay", encodeDelay(delay, places.delay, &gaps))) }
        if let fault = response.fault {
            var name = fault.rawValue
            if !Fault.native.contains(fault) {
                name = Fault.garbage.rawValue
                gaps.append(
                    EncodingGap(
                        .approximated,
                        places.fault,
                        "MALFORMED_RESPONSE_CHUNK becomes \"garbage\" (bytes that are not HTTP, then close)"
                    )
                )
            }
            members.append(("fault", .string(name)))
        } else if let dribble = response.dribble {
            members.append(
                (
                    "dribble",
                    .object([
                        ("chunks", .number(dribble.chunks)), ("durationMs", .number(dribble.durationMilliseconds)),
                    ])
                )
            )
        }
        return .object(members)
    }

    /// Bytes as a body: a file when `bodyFile` names one; else JSON written as JSON when that
    /// serves the same bytes, valid UTF-8 as text, anything else as base64.
    private static func placeBody(_ bytes: [UInt8], _ bodyFile: ([UInt8]) -> String?) -> (String, JSONNode)? {
        guard !bytes.isEmpty else { return nil }
        if let file = bodyFile(bytes) { return ("bodyFile", .string(file)) }
        if let value = try? JSONParser.parse(bytes), value.members != nil || value.elements != nil,
            JSONSerializer.bytes(value) == bytes
        {
            return ("body", value)
        }
        if let text = UTF8Text.decode(bytes) { return ("body", .string(text)) }
        return ("bodyBase64", .string(Base64.encode(bytes)))
    }

    private static func encodeDelay(_ delay: Delay, _ place: [DefinitionStep], _ gaps: inout [EncodingGap]) -> JSONNode
    {
        switch delay {
        case .fixed(let ms): return .number(ms)
        case .uniform(let lo, let hi): return .object([("min", .number(lo)), ("max", .number(hi))])
        case .logNormal(let median, _, _, let plus):
            gaps.append(
                EncodingGap(
                    .approximated,
                    place,
                    "a lognormal delay becomes a fixed delay of its median (\(median + plus) ms)"
                )
            )
            return .number(median + plus)
        }
    }

    private static func encodeProxy(_ proxy: ProxyRule) -> JSONNode {
        var rule: [(String, JSONNode)] = [("to", .string(proxy.upstream.description))]
        if let strip = proxy.stripPrefix { rule.append(("stripPrefix", .string(strip))) }
        if !proxy.setHeaders.isEmpty {
            rule.append(("headers", .object(proxy.setHeaders.map { ($0.name, .string($0.value)) })))
        }
        if !proxy.removeHeaders.isEmpty {
            rule.append(("removeHeaders", .array(proxy.removeHeaders.map { .string($0) })))
        }
        if proxy.preserveHost { rule.append(("preserveHost", .bool(true))) }
        if proxy.timeoutMilliseconds != ProxyRule(upstream: proxy.upstream).timeoutMilliseconds {
            rule.append(("timeoutMs", .number(Int(proxy.timeoutMilliseconds))))
        }
        return .object(rule)
    }

    private static func encodeWebhook(
        _ webhook: Webhook,
        _ pathVariables: EncodedPathVariables,
        _ gaps: inout [EncodingGap]
    ) -> JSONNode? {
        guard let encoded = webhook.renderer.encode(pathVariables: pathVariables, gaps: &gaps) else { return nil }
        var members: [(String, JSONNode)] = [("url", .string(encoded.url)), ("method", .string(encoded.method))]
        if !encoded.headers.isEmpty {
            members.append(("headers", .object(encoded.headers.map { ($0.name, .string($0.value)) })))
        }
        switch encoded.body {
        case .none: break
        case .text(let text): members.append(("body", .string(text)))
        case .bytes(let bytes): members.append(("bodyBase64", .string(Base64.encode(bytes))))
        }
        if encoded.templated { members.append(("template", .bool(true))) }
        if let delay = webhook.delay { members.append(("delay", encodeDelay(delay, encoded.place, &gaps))) }
        return .object(members)
    }

    /// The reason phrase of a prepared status line (`HTTP/1.1 200 Fine`).
    private static func reasonPhrase(_ prepared: PreparedResponse) -> String? {
        let head = prepared.head
        guard head.count > 13, let end = head.firstIndex(of: UInt8(ascii: "\r")), end >= 13 else { return nil }
        return String(decoding: head[13..<end], as: UTF8.self)
    }
}
