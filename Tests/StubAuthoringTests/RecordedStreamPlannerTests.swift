import HTTP1
import JSON
import Testing
import WebSocket

@testable import StubAuthoring
@testable import StubEngine

/// Recorded streams as stubs, case by case: the edges of `ExchangeStubPlanner+Streams` that a
/// live recording rarely shows.
@Suite struct RecordedStreamPlannerTests {
    private func event(_ text: String, at: Int) -> RecordedEvents.Event {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.utf8) }
        return .init(block: ServerSentEventBlock(lines: lines), atMilliseconds: at)
    }

    private func text(_ node: JSONNode) -> String { JSONSerializer.string(node) }

    @Test func eventsKeepTheirFieldsAndRoundedDelays() {
        let recorded = RecordedEvents(
            events: [
                event("id: 1\ndata: {\"a\": 1}", at: 3),
                event("retry: 5000", at: 1_497),
                event(": ping", at: 1_501),
                event("event: done\ndata: [1,2]", at: 2_004),
            ],
            ended: false
        )
        let members = ExchangeStubPlanner.eventMembers(recorded)
        #expect(
            text(.object(members))
                == #"{"events":[{"id":"1","data":"{\"a\": 1}"},{"retry":5000,"comment":"","delay":1490},"#
                + #"{"comment":"ping"},{"event":"done","data":[1,2],"delay":500}],"then":"hold"}"#,
            "data not compact stays text; fields alone get an empty comment; under 5 ms is no delay"
        )
    }

    @Test func aStreamThatCameWholeIsCutIntoEventsDueAtOnce() {
        let exchange = RecordedExchange(method: "GET", path: "/s", status: 200)
        let events = ExchangeStubPlanner.recordedEvents(
            exchange,
            body: Array("data: a\n\ndata: b\n\n".utf8),
            contentType: "text/event-stream; charset=utf-8"
        )
        #expect(events?.events.map(\.block.data) == ["a", "b"])
        #expect(events?.ended == true)
        #expect(ExchangeStubPlanner.recordedEvents(exchange, body: [1], contentType: "text/plain") == nil)
    }

    @Test func aWebSocketBecomesOnOpenAndOneRulePerDistinctTextMessage() {
        var recorded = RecordedWebSocket()
        let messages: [(RecordedWebSocket.Direction, WebSocketEndpoint.Message, Int)] = [
            (.fromUpstream, .text(#"{"hi":1}"#), 0),
            (.fromClient, .binary([1, 2]), 10),
            (.fromUpstream, .text("after binary"), 20),
            (.fromClient, .text("ping"), 100),
            (.fromUpstream, .text("pong {{x}}"), 104),
            (.fromClient, .text("ping"), 200),
            (.fromUpstream, .text("pong again"), 210),
            (.fromClient, .text(#"{"bye":true}"#), 300),
        ]
        recorded.messages = messages.map { .init(direction: $0.0, message: $0.1, atMilliseconds: $0.2) }
        recorded.upstreamClose = (1000, "", 350)
        #expect(
            text(ExchangeStubPlanner.webSocketNode(recorded))
                == #"{"onOpen":[{"send":{"hi":1}}],"onMessage":[{"match":{"equals":"ping"},"reply":"#
                + #"[{"send":{"binary":"cG9uZyB7e3h9fQ=="}}]},{"match":{"jsonEquals":{"bye":true}},"#
                + #""close":{"code":1000,"after":50}}]}"#,
            "a binary message makes no rule; a repeat keeps the first answer; {{ goes as bytes"
        )
    }

    @Test func aCloseBeforeAnyMessageClosesTheConnection() {
        var recorded = RecordedWebSocket()
        recorded.messages = [.init(direction: .fromUpstream, message: .text("bye"), atMilliseconds: 0)]
        recorded.upstreamClose = (4000, "maintenance", 1_000)
        #expect(
            text(ExchangeStubPlanner.webSocketNode(recorded))
                == #"{"onOpen":[{"send":"bye"}],"close":{"code":4000,"reason":"maintenance","after":1000}}"#
        )
    }
}
