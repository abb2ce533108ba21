/// The keys of the stub format (docs/stub-format.md), in the contract's order: what the decoders
/// accept and the order the encoder writes them in.
package enum StubFormat {
    package static let stubKeys = [
        "name", "priority", "request", "response", "responses", "websocket", "after", "scenario",
        "webhooks",
    ]
    package static let requestKeys = ["method", "path", "pathPattern", "host", "query", "rawQuery", "headers", "body"]
    package static let responseKeys = [
        "status", "headers", "body", "bodyFile", "bodyBase64", "events", "eventsFile", "eventDelay", "then",
        "heartbeat",
        "template", "delay", "fault", "dribble", "proxy",
    ]
    package static let proxyKeys = ["to", "stripPrefix", "headers", "removeHeaders", "preserveHost", "timeoutMs"]
    package static let matcherKeys = ["equals", "contains", "matches", "present", "absent", "caseInsensitive"]
    package static let bodyMatcherKeys = [
        "json", "jsonEquals", "jsonPointer", "equals", "contains", "matches", "form", "multipart", "caseInsensitive",
    ]
    /// A `multipart` body matcher: fields by name, files by name.
    package static let multipartKeys = ["fields", "files"]
    /// One file of a `multipart` matcher: conditions on its part, each optional.
    package static let multipartFileKeys = ["filename", "contentType", "content", "absent"]
    /// A matcher object inside a `json` pattern or a `jsonPointer` entry: an object with only these keys.
    package static let jsonMatcherKeys = [
        "equals", "contains", "matches", "present", "absent", "greaterThan", "atLeast", "lessThan", "atMost",
        "caseInsensitive",
    ]
    package static let scenarioKeys = ["name", "when", "then"]
    package static let delayRangeKeys = ["min", "max"]
    package static let dribbleKeys = ["chunks", "durationMs"]
    /// One server-sent event in `events`.
    package static let eventKeys = ["event", "id", "data", "comment", "retry", "delay", "fault"]
    /// A stub's `websocket`, its rules, the messages it sends and its close.
    package static let webSocketKeys = ["onOpen", "onMessage", "onUnmatched", "close"]
    package static let webSocketRuleKeys = ["match", "reply", "close"]
    package static let webSocketSendKeys = ["send", "delay"]
    package static let webSocketCloseKeys = ["code", "reason", "after"]
    package static let webhookKeys = ["method", "url", "headers", "body", "bodyBase64", "template", "delay"]
}
