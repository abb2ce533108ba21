import Foundation
import HTTP1
@testable import StubEngine
import XCTest

/// Event and WebSocket stubs at load: what is accepted, and each mistake as an error with its
/// file, line, column and JSON path.
final class StreamLoadingTests: XCTestCase {
    private func errors(_ json: String) -> [String] {
        let folder = TemporaryFolder()
        folder.write("s.json", json)
        // From the file's name on: the folder is a fresh temporary one.
        return folder.load().errors.map {
            String($0.description[($0.description.range(of: "s.json:")?.lowerBound)!...])
        }
    }

    func testMistakesAreErrorsWithTheirPlaces() {
        let cases: [(String, String)] = [
            (
                #"{"response": {"body": "x", "events": [{"data": "a"}]}}"#,
                "s.json:1:23: error: $.response.body: a response has events or a body, not both: remove body"
            ),
            (
                #"{"response": {"events": [{"event": "x"}]}}"#,
                "s.json:1:26: error: $.response.events[0]: an event needs \"data\" or a \"comment\" (or a \"fault\")"
            ),
            (
                #"{"response": {"events": [{"data": "a", "delay": -5}]}}"#,
                "s.json:1:49: error: $.response.events[0].delay: expected milliseconds (a whole number of 0 or"
                    + " more), found -5"
            ),
            (
                #"{"request": {"method": "POST"}, "websocket": {"onOpen": []}}"#,
                "s.json:1:46: error: $.websocket: a WebSocket opens with a GET upgrade; this stub's request method"
                    + " is POST"
            ),
            (
                #"{"response": {"events": [{"data": "a", "evnt": "x"}]}}"#,
                "s.json:1:40: error: $.response.events[0].evnt: unknown key \"evnt\" in an event; did you mean"
                    + " \"event\"?"
            ),
            (
                #"{"response": {"events": [{"data": "a"}], "then": "hodl"}}"#,
                "s.json:1:50: error: $.response.then: expected \"close\", \"hold\" or \"repeat\", found the string"
                    + " \"hodl\"; did you mean \"hold\"?"
            ),
            (
                #"{"response": {"events": [{"data": "a"}], "then": "repeat"}}"#,
                "s.json:1:50: error: $.response.then: \"repeat\" needs a delay on at least one event, or it would"
                    + " send without pause"
            ),
            (
                #"{"response": {"events": [{"fault": "reset", "data": "x"}]}}"#,
                "s.json:1:53: error: $.response.events[0].data: an event with a fault sends nothing: remove data"
            ),
            (
                #"{"response": {"events": [{"data": "{{request.path.id}}"}]}}"#,
                "s.json:1:35: error: $.response.events[0].data: {{request.path.id}}: no {id} in the request path"
                    + " (the stub's path has no {name} segments)"
            ),
            (
                #"{"response": {"events": [{"id": "a\nb", "data": "x"}]}}"#,
                "s.json:1:33: error: $.response.events[0].id: must be one line: no line breaks or NUL"
            ),
            (
                #"{"response": {"events": [{"data": "a"}], "heartbeat": 5}}"#,
                "s.json:1:55: error: $.response.heartbeat: heartbeat applies to \"then\": \"hold\""
            ),
            (
                #"{"websocket": {"onMessage": [{"match": {"contains": "a"}}]}}"#,
                "s.json:1:30: error: $.websocket.onMessage[0]: a message rule needs a \"reply\" or a \"close\" (or"
                    + " both)"
            ),
            (
                #"{"websocket": {"onOpen": [{"send": "{{message.text}}"}]}}"#,
                "s.json:1:36: error: $.websocket.onOpen[0].send: {{message.text}}: the message is known only in a"
                    + " WebSocket rule's reply"
            ),
            (
                #"{"websocket": {"close": {"code": 1005}}}"#,
                "s.json:1:34: error: $.websocket.close.code: expected a close code a server may send (1000 to"
                    + " 1003, 1007 to 1014, 3000 to 4999), found 1005"
            ),
            (
                #"{"websocket": {"onUnmatched": "drop"}}"#,
                "s.json:1:31: error: $.websocket.onUnmatched: expected \"ignore\" or \"close\", found the string"
                    + " \"drop\""
            ),
            (
                #"{"response": {}, "websocket": {}}"#,
                "s.json:1:14: error: $.response: a stub has \"websocket\" or \"response\", not both"
            ),
        ]
        for (json, expected) in cases {
            XCTAssertEqual(errors(json), [expected], json)
        }
    }

    func testGoodStreamStubsLoad() {
        let cases = [
            #"""
            {"request": {"path": "/o/{id}"}, "response": {"events": [{"data": {"id": "{{request.path.id}}"}},
              {"comment": "k", "delay": 5}], "then": "hold", "heartbeat": 100}}
            """#,
            #"""
            {"response": {"status": 201, "headers": {"X-A": "b"}, "events": [{"data": "a", "delay": 10}],
              "then": "repeat", "delay": 5}}
            """#,
            #"""
            {"request": {"method": "GET", "path": "/ws"}, "websocket": {"onOpen": [{"send": {"binary": "AAE="}}],
              "onMessage": [{"reply": [{"send": "{{message.json./a}} {{message.text}}"}]}], "onUnmatched": "close",
              "close": {"code": 4000, "reason": "r", "after": 10}}}
            """#,
        ]
        for json in cases {
            XCTAssertEqual(errors(json), [], json)
        }
    }
}
