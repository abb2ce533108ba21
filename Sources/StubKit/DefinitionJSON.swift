import Foundation

/// Definitions written as stub-file JSON, which the engine's stub decoder (`NativeStubs`) reads
/// exactly as it reads a file: one meaning, and one set of error messages, whichever way a stub was written. Maps
/// (headers, query, form) are written in name order, so the same definition always gives the
/// same JSON.
enum DefinitionJSON {
    static func stub(_ stub: StubDefinition) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if let name = stub.name { members.append(("name", .string(name))) }
        if let priority = stub.priority { members.append(("priority", .number(Double(priority)))) }
        let request = request(stub.request)
        if request != [:] { members.append(("request", request)) }
        if stub.responder != nil {
            // A placeholder the loader accepts; the engine answers with the closure instead.
            members.append(("response", [:]))
        } else if let responses = stub.responses {
            members.append(("responses", .array(responses.map(response))))
        } else if let single = stub.response {
            members.append(("response", response(single)))
        }
        if let webSocket = stub.webSocket { members.append(("websocket", webSocket.json)) }
        if let after = stub.after { members.append(("after", .string(after.rawValue))) }
        if let scenario = stub.scenario {
            var fields: [(key: String, value: JSONValue)] = [("name", .string(scenario.name))]
            if let when = scenario.when { fields.append(("when", .string(when))) }
            if let then = scenario.then { fields.append(("then", .string(then))) }
            members.append(("scenario", .object(fields)))
        }
        if !stub.webhooks.isEmpty { members.append(("webhooks", .array(stub.webhooks.map(webhook)))) }
        return .object(members)
    }

    static func webhook(_ webhook: WebhookDefinition) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("url", .string(webhook.url))]
        if let method = webhook.method { members.append(("method", .string(method))) }
        if let headers = webhook.headers { members.append(("headers", Self.headers(headers))) }
        if let body = webhook.body { members.append(("body", body)) }
        if let data = webhook.bodyData { members.append(("bodyBase64", .string(data.base64EncodedString()))) }
        if let template = webhook.template { members.append(("template", .bool(template))) }
        if let delay = webhook.delay { members.append(("delay", Self.delay(delay))) }
        return .object(members)
    }

    /// Name order, so the same definition always gives the same JSON.
    static func headers(_ headers: [String: HeaderValue]) -> JSONValue {
        .object(
            headers.sorted { $0.key < $1.key }.map { header in
                switch header.value {
                case .one(let value): (key: header.key, value: .string(value))
                case .many(let values): (key: header.key, value: .array(values.map { .string($0) }))
                }
            }
        )
    }

    static func delay(_ delay: ResponseDefinition.Delay) -> JSONValue {
        switch delay {
        case .fixed(let duration): milliseconds(duration)
        case .random(let range): ["min": milliseconds(range.lowerBound), "max": milliseconds(range.upperBound)]
        }
    }

    static func request(_ request: RequestDefinition) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if let method = request.method { members.append(("method", .string(method.rawValue))) }
        if let path = request.path { members.append(("path", .string(path))) }
        if let pattern = request.pathPattern { members.append(("pathPattern", .string(pattern))) }
        if let host = request.host { members.append(("host", matcher(host))) }
        if let query = request.query { members.append(("query", matchers(query))) }
        if let headers = request.headers { members.append(("headers", matchers(headers))) }
        if let body = request.body { members.append(("body", body.json)) }
        return .object(members)
    }

    static func matchers(_ map: [String: Matcher]) -> JSONValue {
        .object(map.sorted { $0.key < $1.key }.map { (key: $0.key, value: matcher($0.value)) })
    }

    static func matcher(_ matcher: Matcher) -> JSONValue {
        func operand(_ key: String, _ value: String, _ caseInsensitive: Bool) -> JSONValue {
            caseInsensitive ? [key: .string(value), "caseInsensitive": true] : [key: .string(value)]
        }
        switch matcher {
        case .equals(let s, false): return .string(s)
        case .equals(let s, true): return operand("equals", s, true)
        case .contains(let s, let ci): return operand("contains", s, ci)
        case .matches(let s, let ci): return operand("matches", s, ci)
        case .present: return ["present": true]
        case .absent: return ["absent": true]
        }
    }

    static func response(_ response: ResponseDefinition) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if let status = response.status { members.append(("status", .number(Double(status)))) }
        if let headers = response.headers { members.append(("headers", Self.headers(headers))) }
        if let body = response.body { members.append(("body", body)) }
        if let file = response.bodyFile { members.append(("bodyFile", .string(file))) }
        if let data = response.bodyData { members.append(("bodyBase64", .string(data.base64EncodedString()))) }
        members += response.streamMembers
        if let template = response.template { members.append(("template", .bool(template))) }
        if let delay = response.delay { members.append(("delay", Self.delay(delay))) }
        if let fault = response.fault { members.append(("fault", .string(fault.rawValue))) }
        if let dribble = response.dribble {
            members.append(
                ("dribble", ["chunks": .number(Double(dribble.chunks)), "durationMs": milliseconds(dribble.duration)])
            )
        }
        return .object(members)
    }

    /// Whole milliseconds, rounded: the stub format's unit.
    static func milliseconds(_ duration: Duration) -> JSONValue {
        let (seconds, attoseconds) = duration.components
        return .number((Double(seconds) * 1000 + Double(attoseconds) / 1e15).rounded())
    }
}
