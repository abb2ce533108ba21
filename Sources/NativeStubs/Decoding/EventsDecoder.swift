import HTTP1
import JSON
import StubEngine
import SystemSupport

/// A response's server-sent events: `events` (a list) or `eventsFile` (a raw `.sse` file
/// replayed block by block), with `then`, `heartbeat` and `eventDelay`. Every event is checked
/// and encoded here, so a mistake is a load error with its place and serving only copies bytes.
enum EventsDecoder {
    /// The response keys that belong to events; with none of them the response is a body.
    static let streamKeys = ["events", "eventsFile", "eventDelay", "then", "heartbeat"]

    /// A response with events: the head prepared for a stream (no length), the script.
    static func decodeResponse(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String,
        status: Int,
        headers: HeaderFields,
        pathParameters: Set<String>
    ) -> StubResponse? {
        var headers = headers
        if !headers.contains("Content-Type") { headers.add("Content-Type", "text/event-stream") }
        if !headers.contains("Cache-Control") { headers.add("Cache-Control", "no-cache") }
        if let flag = node["template"], flag.bool == nil {
            c.error(path + ".template", flag, "expected true or false, found \(flag.kindDescription)")
        }
        let delay = node["delay"].flatMap { ResponseDecoder.decodeDelay(&c, $0, path + ".delay") }
        guard let script = decodeScript(&c, node, path, pathParameters: pathParameters) else { return nil }
        let prepared = PreparedResponse(status: status, headers: headers, streamLength: nil)
        return StubResponse(prepared: prepared, delay: delay, stream: .events(script))
    }

    static func decodeScript(
        _ c: inout DecodingContext,
        _ response: JSONNode,
        _ path: String,
        pathParameters: Set<String>
    ) -> EventStreamScript? {
        let before = c.errorCount
        for bodyKey in ["body", "bodyFile", "bodyBase64"] where response[bodyKey] != nil {
            let streamKey = response["events"] != nil ? "events" : "eventsFile"
            c.error(
                path + "." + bodyKey,
                response[bodyKey],
                "a response has \(streamKey) or a body, not both: remove \(bodyKey)"
            )
        }
        for key in ["dribble", "proxy", "fault"] where response[key] != nil {
            let why =
                key == "fault"
                ? "a fault replaces the whole response; to fail mid-stream, give an event a \"fault\""
                : "an event stream sets its own timing with each event's \"delay\""
            c.error(path + "." + key, response[key], "\(key) does not apply to an event stream: \(why)")
        }
        let templated = response["template"]?.bool != false
        var events: [EventStreamScript.Event] = []
        switch (response["events"], response["eventsFile"]) {
        case (let list?, nil):
            events = decodeList(&c, list, path + ".events", pathParameters: pathParameters, templated: templated)
        case (nil, let file?):
            events = decodeFile(&c, response, file, path)
        case (_?, let file?):
            c.error(path + ".eventsFile", file, "a response has events or eventsFile, not both")
        case (nil, nil):
            for key in ["eventDelay", "then", "heartbeat"] where response[key] != nil {
                c.error(path + "." + key, response[key], "\(key) applies to a response with events or eventsFile")
            }
            return nil
        }
        if response["eventDelay"] != nil, response["eventsFile"] == nil {
            c.error(
                path + ".eventDelay",
                response["eventDelay"],
                "eventDelay applies to eventsFile; give each event its own delay"
            )
        }
        let end = decodeEnd(&c, response, path)
        if end == .repeatAll, !events.isEmpty, events.allSatisfy({ $0.delayMilliseconds == 0 }) {
            c.error(
                path + ".then",
                response["then"],
                "\"repeat\" needs a delay on at least one event, or it would send without pause"
            )
        }
        guard c.errorCount == before, !events.isEmpty else { return nil }
        return EventStreamScript(events: events, end: end)
    }

    static let eventKeys = StubFormat.eventKeys

    private static func decodeList(
        _ c: inout DecodingContext,
        _ list: JSONNode,
        _ path: String,
        pathParameters: Set<String>,
        templated: Bool
    ) -> [EventStreamScript.Event] {
        guard let elements = list.elements, !elements.isEmpty else {
            c.error(path, list, "expected a non-empty array of events, found \(list.kindDescription)")
            return []
        }
        var events: [EventStreamScript.Event] = []
        for (index, element) in elements.enumerated() {
            let eventPath = "\(path)[\(index)]"
            guard c.checkKeys(element, eventPath, allowed: eventKeys, what: "an event") else { continue }
            if let event = decodeEvent(&c, element, eventPath, pathParameters: pathParameters, templated: templated) {
                events.append(event)
            }
        }
        return events
    }

    private static func decodeEvent(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String,
        pathParameters: Set<String>,
        templated: Bool
    ) -> EventStreamScript.Event? {
        let before = c.errorCount
        let delay = node["delay"].flatMap { decodeMilliseconds(&c, $0, path + ".delay") } ?? 0
        if let faultNode = node["fault"] {
            guard let name = faultNode.string, let fault = EventStreamScript.StreamFault(rawValue: name) else {
                let names = EventStreamScript.StreamFault.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                c.error(path + ".fault", faultNode, "expected one of \(names), found \(faultNode.kindDescription)")
                return nil
            }
            for key in ["event", "id", "data", "comment", "retry"] where node[key] != nil {
                c.error(path + "." + key, node[key], "an event with a fault sends nothing: remove \(key)")
            }
            return c.errorCount == before ? .init(delayMilliseconds: delay, id: nil, content: .fault(fault)) : nil
        }
        let event = singleLine(&c, node["event"], path + ".event")
        let id = singleLine(&c, node["id"], path + ".id")
        var comment: String?
        if let commentNode = node["comment"] {
            if let text = commentNode.string {
                comment = text
            } else {
                c.error(
                    path + ".comment",
                    commentNode,
                    "expected the comment as a string, found \(commentNode.kindDescription)"
                )
            }
        }
        var retry: Int?
        if let retryNode = node["retry"] {
            if let n = retryNode.wholeNumber, n >= 0 {
                retry = n
            } else {
                c.error(
                    path + ".retry",
                    retryNode,
                    "expected milliseconds (a whole number of 0 or more), found \(retryNode.kindDescription)"
                )
            }
        }
        guard node["data"] != nil || node["comment"] != nil else {
            c.error(path, node, "an event needs \"data\" or a \"comment\" (or a \"fault\")")
            return nil
        }
        let fields = EventStreamScript.EventFields(comment: comment, event: event, id: id, retry: retry)
        guard let dataNode = node["data"] else {
            return c.errorCount == before
                ? .init(delayMilliseconds: delay, id: id, content: .fixed(fields.encode(data: nil))) : nil
        }
        // Text goes as it is (several lines become several data: lines); anything else is JSON,
        // written compactly so it stays on one line.
        let isText = dataNode.string != nil
        let fixedData = dataNode.string ?? JSONSerializer.string(dataNode)
        var data: Template?
        if templated, fixedData.contains("{{") {
            var failures: [(path: String, node: JSONNode, error: TemplateError)] = []
            if isText {
                var template = Template()
                for failure in Template.scan(
                    fixedData,
                    pathParameters: pathParameters,
                    jsonString: false,
                    into: &template
                ) {
                    failures.append((path + ".data", dataNode, failure))
                }
                data = template
            } else {
                data = Template.json(dataNode, pathParameters: pathParameters, path: path + ".data", errors: &failures)
            }
            for failure in failures { c.error(failure.path, failure.node, failure.error.message) }
        }
        guard c.errorCount == before else { return nil }
        if let data { return .init(delayMilliseconds: delay, id: id, content: .templated(fields, data: data)) }
        return .init(delayMilliseconds: delay, id: id, content: .fixed(fields.encode(data: fixedData)))
    }

    /// `eventsFile`: the file's events as they are written there, `eventDelay` apart.
    private static func decodeFile(
        _ c: inout DecodingContext,
        _ response: JSONNode,
        _ file: JSONNode,
        _ path: String
    ) -> [EventStreamScript.Event] {
        let gap = response["eventDelay"].flatMap { decodeMilliseconds(&c, $0, path + ".eventDelay") } ?? 0
        guard let relative = file.string else {
            c.error(
                path + ".eventsFile",
                file,
                "expected a file path relative to this stub file, found \(file.kindDescription)"
            )
            return []
        }
        switch c.bodyFiles.read(relative, from: c.fileURL) {
        case .failure(let failure):
            c.error(path + ".eventsFile", file, failure.message.replacing("bodyFile", with: "eventsFile"))
            return []
        case .success(let bytes):
            let blocks = ServerSentEventSplitter.blocks(of: bytes)
            guard !blocks.isEmpty else {
                c.error(
                    path + ".eventsFile",
                    file,
                    "\"\(relative)\" holds no events (blocks of field lines separated by blank lines)"
                )
                return []
            }
            return blocks.enumerated().map { index, block in
                .init(delayMilliseconds: index == 0 ? 0 : gap, id: block.id, content: .fixed(block.raw))
            }
        }
    }

    private static func decodeEnd(
        _ c: inout DecodingContext,
        _ response: JSONNode,
        _ path: String
    ) -> EventStreamScript.End {
        var end = EventStreamScript.End.close
        if let then = response["then"] {
            switch then.string {
            case "close": end = .close
            case "hold": end = .hold(heartbeatMilliseconds: EventStreamScript.defaultHeartbeatMilliseconds)
            case "repeat": end = .repeatAll
            default:
                var message = "expected \"close\", \"hold\" or \"repeat\", found \(then.kindDescription)"
                if let s = then.string, let near = Suggestion.closest(to: s, among: ["close", "hold", "repeat"]) {
                    message += "; did you mean \"\(near)\"?"
                }
                c.error(path + ".then", then, message)
            }
        }
        if let heartbeat = response["heartbeat"] {
            if case .hold = end {
                if let n = heartbeat.wholeNumber, n >= 1 {
                    end = .hold(heartbeatMilliseconds: n)
                } else {
                    c.error(
                        path + ".heartbeat",
                        heartbeat,
                        "expected milliseconds (a whole number of 1 or more), found \(heartbeat.kindDescription)"
                    )
                }
            } else {
                c.error(path + ".heartbeat", heartbeat, "heartbeat applies to \"then\": \"hold\"")
            }
        }
        return end
    }

    static func decodeMilliseconds(_ c: inout DecodingContext, _ node: JSONNode, _ path: String) -> Int? {
        guard let n = node.wholeNumber, n >= 0 else {
            c.error(
                path,
                node,
                "expected milliseconds (a whole number of 0 or more), found "
                    + (node.number?.text ?? node.kindDescription)
            )
            return nil
        }
        return n
    }

    private static func singleLine(_ c: inout DecodingContext, _ node: JSONNode?, _ path: String) -> String? {
        guard let node else { return nil }
        guard let text = node.string ?? node.number?.text else {
            c.error(path, node, "expected a string, found \(node.kindDescription)")
            return nil
        }
        guard ServerSentEvents.isSingleLine(text) else {
            c.error(path, node, "must be one line: no line breaks or NUL")
            return nil
        }
        return text
    }
}
