#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubEngine

/// File shapes (one stub, an array, or `{"stubs": [...]}`), each stub's own keys, scenarios.
package enum StubFileDecoder {
    static let stubKeys = StubFormat.stubKeys

    /// One stub object, an array of them, or `{"stubs": [...]}`.
    static func decodeFile(_ c: inout DecodingContext, _ root: JSONNode, firstOrder: Int) -> [Stub] {
        let list: [JSONNode]
        let basePath: String
        if let elements = root.elements {
            list = elements
            basePath = "$"
        } else if let members = root.members, members.contains(where: { $0.key == "stubs" }) {
            _ = c.checkKeys(root, "$", allowed: ["stubs"], what: "a stub file with \"stubs\"")
            guard let elements = root["stubs"]?.elements else {
                c.error("$.stubs", root["stubs"], "expected an array of stubs, found \(root["stubs"]!.kindDescription)")
                return []
            }
            list = elements
            basePath = "$.stubs"
        } else if root.members != nil {
            return decodeStub(&c, root, "$", index: 0, order: firstOrder).map { [$0] } ?? []
        } else {
            c.error(
                "$",
                root,
                "expected a stub object, an array of stubs, or {\"stubs\": [...]}, found \(root.kindDescription)"
            )
            return []
        }
        var stubs: [Stub] = []
        for (index, node) in list.enumerated() {
            if c.stopsAtErrorLimit(before: index, of: list.count, what: "stub") { break }
            if let stub = decodeStub(&c, node, "\(basePath)[\(index)]", index: index, order: firstOrder + index) {
                stubs.append(stub)
            }
        }
        return stubs
    }

    static func decodeStub(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String,
        index: Int,
        order: Int
    ) -> Stub? {
        let before = c.problems.count
        guard c.checkKeys(node, path, allowed: Self.stubKeys, what: "a stub") else { return nil }
        var name = "\(c.displayPath)#\(index)"
        if let nameNode = node["name"] {
            if let s = nameNode.string, !s.isEmpty {
                name = s
            } else {
                c.error(path + ".name", nameNode, "expected a non-empty string, found \(nameNode.kindDescription)")
            }
        }
        var priority = 5
        if let p = node["priority"] {
            if let n = p.wholeNumber, n >= 1 {
                priority = n
            } else {
                c.error(
                    path + ".priority",
                    p,
                    "expected a whole number of 1 or more (1 is the highest priority), found \(p.kindDescription)"
                )
            }
        }
        let request =
            node["request"].map { RequestDecoder.decodeRequest(&c, $0, path + ".request") } ?? RequestPattern()
        let parameters = request?.path?.parameterNames ?? []
        var responses: [StubResponse] = []
        if let socket = node["websocket"] {
            // A WebSocket stub answers the upgrade; a response beside it could never be sent.
            for key in ["response", "responses"] where node[key] != nil {
                c.error(path + "." + key, node[key], "a stub has \"websocket\" or \"\(key)\", not both")
            }
            let script = WebSocketDecoder.decode(
                &c,
                socket,
                path + ".websocket",
                request: request,
                pathParameters: parameters
            )
            if let script {
                let head = PreparedResponse(status: 101, headers: HeaderFields())
                responses = [StubResponse(prepared: head, stream: .webSocket(script))]
            }
        } else {
            decodeResponses(&c, node, path, parameters: parameters, into: &responses)
        }
        var afterLast = SequenceEnd.repeatLast
        if let after = node["after"] {
            if node["responses"] == nil {
                c.error(path + ".after", after, "\"after\" applies to a \"responses\" sequence")
            } else if let s = after.string, let value = SequenceEnd(rawValue: s) {
                afterLast = value
            } else {
                c.error(path + ".after", after, "expected \"repeatLast\" or \"cycle\", found \(after.kindDescription)")
            }
        }
        let scenario = node["scenario"].flatMap { decodeScenario(&c, $0, path + ".scenario") }
        let webhooks =
            node["webhooks"].map {
                WebhookDecoder.decodeWebhooks(&c, $0, path + ".webhooks", pathParameters: parameters)
            } ?? []
        guard c.problems.count == before || !c.problems[before...].contains(where: { $0.severity == .error }),
            let request, !responses.isEmpty
        else { return nil }
        return Stub(
            name: name,
            source: c.makeSource(index),
            priority: priority,
            request: request,
            responses: responses,
            afterLast: afterLast,
            scenario: scenario,
            order: order,
            definition: node,
            webhooks: webhooks
        )
    }

    private static func decodeResponses(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String,
        parameters: Set<String>,
        into responses: inout [StubResponse]
    ) {
        switch (node["response"], node["responses"]) {
        case (let single?, nil):
            if let response = ResponseDecoder.decodeResponse(&c, single, path + ".response", pathParameters: parameters)
            {
                responses = [response]
            }
        case (nil, let list?):
            if let elements = list.elements, !elements.isEmpty {
                for (i, element) in elements.enumerated() {
                    if let response = ResponseDecoder.decodeResponse(
                        &c,
                        element,
                        "\(path).responses[\(i)]",
                        pathParameters: parameters
                    ) {
                        responses.append(response)
                    }
                }
            } else {
                c.error(
                    path + ".responses",
                    list,
                    "expected a non-empty array of responses, found \(list.kindDescription)"
                )
            }
        case (_?, let list?):
            c.error(path + ".responses", list, "a stub has either \"response\" or \"responses\" (a sequence), not both")
        case (nil, nil):
            c.error(
                path,
                node,
                "a stub needs a \"response\" (what to answer), \"responses\" (a sequence) or \"websocket\""
            )
        }
    }

    static func decodeScenario(_ c: inout DecodingContext, _ node: JSONNode, _ path: String) -> ScenarioRule? {
        guard c.checkKeys(node, path, allowed: StubFormat.scenarioKeys, what: "a scenario") else { return nil }
        var values: [String: String] = [:]
        for key in ["name", "when", "then"] {
            guard let value = node[key] else { continue }
            if let s = value.string, !s.isEmpty {
                values[key] = s
            } else {
                c.error(path + "." + key, value, "expected a non-empty string, found \(value.kindDescription)")
            }
        }
        guard let name = values["name"] else {
            if node["name"] == nil { c.error(path, node, "a scenario needs a \"name\"") }
            return nil
        }
        return ScenarioRule(name: name, when: values["when"] ?? ScenarioRule.initialState, then: values["then"])
    }

}
