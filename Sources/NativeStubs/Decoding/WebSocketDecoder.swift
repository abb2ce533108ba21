#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubEngine
import WebSocket

/// A stub's `websocket` (instead of `response`): `onOpen`, `onMessage` rules, `onUnmatched`,
/// `close`. Message conditions are the request body's matchers; replies may use the message
/// in templates (`message.text`, `message.json./pointer`).
enum WebSocketDecoder {
    static let keys = StubFormat.webSocketKeys
    static let ruleKeys = StubFormat.webSocketRuleKeys
    static let sendKeys = StubFormat.webSocketSendKeys
    static let closeKeys = StubFormat.webSocketCloseKeys

    static func decode(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String,
        request: RequestPattern?,
        pathParameters: Set<String>
    ) -> WebSocketScript? {
        let before = c.errorCount
        guard c.checkKeys(node, path, allowed: keys, what: "a websocket") else { return nil }
        if let methods = request?.methods, !methods.contains("GET") {
            c.error(
                path,
                node,
                "a WebSocket opens with a GET upgrade; this stub's request method is \(methods.joined(separator: ", "))"
            )
        }
        let onOpen =
            node["onOpen"].map { decodeSends(&c, $0, path + ".onOpen", pathParameters, inMessage: false) } ?? []
        var rules: [WebSocketScript.Rule] = []
        if let list = node["onMessage"] {
            if let elements = list.elements {
                for (index, element) in elements.enumerated() {
                    if let rule = decodeRule(&c, element, "\(path).onMessage[\(index)]", pathParameters) {
                        rules.append(rule)
                    }
                }
            } else {
                c.error(
                    path + ".onMessage",
                    list,
                    "expected an array of rules ({\"match\": ..., \"reply\": [...]}), found \(list.kindDescription)"
                )
            }
        }
        var unmatched = WebSocketScript.Unmatched.ignore
        if let value = node["onUnmatched"] {
            if let s = value.string, let known = WebSocketScript.Unmatched(rawValue: s) {
                unmatched = known
            } else {
                c.error(
                    path + ".onUnmatched",
                    value,
                    "expected \"ignore\" or \"close\", found \(value.kindDescription)"
                )
            }
        }
        let close = node["close"].flatMap { decodeClose(&c, $0, path + ".close") }
        guard c.errorCount == before else { return nil }
        return WebSocketScript(onOpen: onOpen, rules: rules, onUnmatched: unmatched, close: close)
    }

    private static func decodeRule(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String,
        _ pathParameters: Set<String>
    ) -> WebSocketScript.Rule? {
        guard c.checkKeys(node, path, allowed: ruleKeys, what: "a message rule") else { return nil }
        let before = c.errorCount
        let match = node["match"].flatMap { RequestDecoder.decodeBodyMatcher(&c, $0, path + ".match") }
        let replies = node["reply"].map { decodeSends(&c, $0, path + ".reply", pathParameters, inMessage: true) } ?? []
        let close = node["close"].flatMap { decodeClose(&c, $0, path + ".close") }
        if node["reply"] == nil, node["close"] == nil {
            c.error(path, node, "a message rule needs a \"reply\" or a \"close\" (or both)")
        }
        guard c.errorCount == before else { return nil }
        return WebSocketScript.Rule(match: match, replies: replies, close: close)
    }

    private static func decodeSends(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String,
        _ pathParameters: Set<String>,
        inMessage: Bool
    ) -> [WebSocketScript.Send] {
        guard let elements = node.elements else {
            c.error(
                path,
                node,
                "expected an array of messages ({\"send\": ..., \"delay\": ms}), found \(node.kindDescription)"
            )
            return []
        }
        var sends: [WebSocketScript.Send] = []
        for (index, element) in elements.enumerated() {
            let itemPath = "\(path)[\(index)]"
            guard c.checkKeys(element, itemPath, allowed: sendKeys, what: "a message to send") else { continue }
            let delay = element["delay"].flatMap { EventsDecoder.decodeMilliseconds(&c, $0, itemPath + ".delay") } ?? 0
            guard let payloadNode = element["send"] else {
                c.error(itemPath, element, "a message to send needs \"send\": text, JSON, or {\"binary\": \"BASE64\"}")
                continue
            }
            if let payload = decodePayload(&c, payloadNode, itemPath + ".send", pathParameters, inMessage: inMessage) {
                sends.append(WebSocketScript.Send(payload: payload, delayMilliseconds: delay))
            }
        }
        return sends
    }

    /// Text as it is; `{"binary": "BASE64"}` (that one key alone) as bytes; other JSON written
    /// compactly. Text and JSON may hold `{{...}}`.
    private static func decodePayload(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String,
        _ pathParameters: Set<String>,
        inMessage: Bool
    ) -> WebSocketScript.Payload? {
        if let members = node.members, members.count == 1, members[0].key == "binary" {
            guard let text = members[0].value.string,
                let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters)
            else {
                c.error(path + ".binary", members[0].value, "expected the message bytes as a base64 string")
                return nil
            }
            return .binary(Array(data))
        }
        let text = node.string ?? JSONSerializer.string(node)
        guard text.contains("{{") else { return .text(text) }
        var failures: [(path: String, node: JSONNode, error: TemplateError)] = []
        let template: Template
        if node.string != nil {
            var scanned = Template()
            for failure in Template.scan(
                text,
                pathParameters: pathParameters,
                jsonString: false,
                into: &scanned,
                allowsMessage: inMessage
            ) {
                failures.append((path, node, failure))
            }
            template = scanned
        } else {
            template = Template.json(
                node,
                pathParameters: pathParameters,
                path: path,
                errors: &failures,
                allowsMessage: inMessage
            )
        }
        for failure in failures { c.error(failure.path, failure.node, failure.error.message) }
        return failures.isEmpty ? .templated(template) : nil
    }

    private static func decodeClose(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String
    ) -> WebSocketScript.Close? {
        guard c.checkKeys(node, path, allowed: closeKeys, what: "a close") else { return nil }
        var code: UInt16 = 1000
        if let codeNode = node["code"] {
            if let n = codeNode.wholeNumber, n >= 0, n <= 0xFFFF,
                WebSocketEndpoint.isValidCloseCode(UInt16(n))
            {
                code = UInt16(n)
            } else {
                c.error(
                    path + ".code",
                    codeNode,
                    "expected a close code a server may send (1000 to 1003, 1007 to 1014, 3000 to 4999), found "
                        + (codeNode.number?.text ?? codeNode.kindDescription)
                )
            }
        }
        var reason = ""
        if let reasonNode = node["reason"] {
            if let s = reasonNode.string, s.utf8.count <= 123 {
                reason = s
            } else {
                c.error(path + ".reason", reasonNode, "expected a reason of at most 123 bytes of text")
            }
        }
        let after = node["after"].flatMap { EventsDecoder.decodeMilliseconds(&c, $0, path + ".after") } ?? 0
        return WebSocketScript.Close(code: code, reason: reason, afterMilliseconds: after)
    }
}
