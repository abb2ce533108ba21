import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NativeStubs
import StubKit
import XCTest

/// Stubs written in Swift: literals and builders that compile without `try` (this file compiling
/// is half the test: nested literals once crashed the compiler's diagnostics), the stub-file
/// JSON they stand for, closure responders, and errors that say what is wrong.
/// One value behind a lock, for what a closure responder saw.
final class Box<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}

final class DefinitionTests: XCTestCase {
    func testNestedLiteralsNeedNoTry() {
        let body: JSONValue = [
            "id": 1001, "username": "new-user", "score": 9.5, "admin": false, "team": nil,
            "tags": ["swift", 1, true, nil, ["nested": [1, [2, [3]]]]],
            "profile": ["name": "Ann", "links": [["rel": "self", "href": "/v1/users/1001"]]],
        ]
        let pattern: JSONPattern = [
            "user": ["name": .matches("[A-Z].*"), "age": .between(18...130)], "items": [["id": .greaterThan(0)]],
            "debug": .absent,
        ]
        let stub = StubDefinition(
            name: "literals",
            request: .post("/v1/users", body: .json(pattern)),
            response: .json(body, status: 201)
        )
        XCTAssertEqual(stub.response?.body?["tags"]?[4]?["nested"]?[1]?[1]?[0], 3)
        XCTAssertEqual(
            body.description,
            #"{"id":1001,"username":"new-user","score":9.5,"admin":false,"team":null,"#
                + #""tags":["swift",1,true,null,{"nested":[1,[2,[3]]]}],"#
                + #""profile":{"name":"Ann","links":[{"rel":"self","href":"/v1/users/1001"}]}}"#,
            "keys in the order written"
        )
        XCTAssertEqual(
            pattern.description,
            #"{"user":{"name":{"matches":"[A-Z].*"},"age":{"atLeast":18,"atMost":130}},"#
                + #""items":[{"id":{"greaterThan":0}}],"debug":{"absent":true}}"#
        )
    }

    func testAValueThatLooksLikeAMatcherStaysLiteral() {
        XCTAssertEqual(JSONPattern(["present": true]).description, #"{"equals":{"present":true}}"#)
        XCTAssertEqual(
            JSONPattern(["a": ["matches": "x"], "b": [["absent": true]]]).description,
            #"{"a":{"equals":{"matches":"x"}},"b":[{"equals":{"absent":true}}]}"#
        )
        XCTAssertEqual(
            JSONPattern.equals("ANN", caseInsensitive: true).description,
            #"{"equals":"ANN","caseInsensitive":true}"#
        )
    }

    func testJSONValuesCompareAsJSON() throws {
        XCTAssertEqual(["a": 1, "b": [1.0, "x"]] as JSONValue, ["b": [1, "x"], "a": 1.0] as JSONValue)
        XCTAssertNotEqual(["a": 1] as JSONValue, ["a": "1"] as JSONValue)
        struct User: Codable {
            let id: Int
            let name: String
        }
        XCTAssertEqual(try JSONValue(encoding: User(id: 7, name: "Ann"))["name"], "Ann")
        XCTAssertEqual(try JSONDecoder().decode(JSONValue.self, from: Data(#"{"a":[1,null]}"#.utf8)), ["a": [1, nil]])
    }

    func testTheBuilderTakesIfsAndLoops() throws {
        let signedOut = true
        let stubs = try Stubs {
            StubDefinition(request: .get("/v1/me"), response: .json(["id": 42]))
            if signedOut {
                StubDefinition(request: .get("/v1/feed"), response: .status(401))
            } else {
                [StubDefinition]()
            }
            for id in 1...3 {
                StubDefinition(request: .get("/v1/items/\(id)"), response: .json(["id": .number(Double(id))]))
            }
            StubDefinition(request: .get("/v1/sequence"), responses: [.status(503), .text("ok")], after: .cycle)
            StubDefinition(
                request: .get("/v1/checkout"),
                response: .status(200),
                scenario: ScenarioDefinition(name: "checkout", then: "paid")
            )
        }
        XCTAssertEqual(stubs.scenarios, ["checkout": "Started"])
        XCTAssertEqual(
            try stubs.add { StubDefinition(request: .delete("/v1/items/1"), response: .status(204)) }.count,
            1
        )
    }

    /// `.head` and `.options` match their method only, through both transports.
    func testHeadAndOptionsShortcutsMatchTheirMethod() async throws {
        for transport in Transport.allCases {
            let stubs = try Stubs {
                StubDefinition(
                    request: .head("/v1/file"),
                    response: ResponseDefinition(status: 200, headers: ["X-Size": "42"])
                )
                StubDefinition(
                    request: .options("/v1/items"),
                    response: ResponseDefinition(status: 204, headers: ["Allow": "GET, POST"])
                )
            }
            let client = try client(of: stubs, through: transport)
            func send(_ method: String, _ path: String) async throws -> HTTPURLResponse {
                var request = URLRequest(url: URL(string: client.baseURL.absoluteString + path)!)
                request.httpMethod = method
                let (_, response) = try await client.session.data(for: request)
                return try XCTUnwrap(response as? HTTPURLResponse)
            }
            let head = try await send("HEAD", "/v1/file")
            XCTAssertEqual(head.statusCode, 200, "\(transport)")
            XCTAssertEqual(head.value(forHTTPHeaderField: "X-Size"), "42", "\(transport)")
            let options = try await send("OPTIONS", "/v1/items")
            XCTAssertEqual(options.statusCode, 204, "\(transport)")
            XCTAssertEqual(options.value(forHTTPHeaderField: "Allow"), "GET, POST", "\(transport)")
            let getFile = try await send("GET", "/v1/file")
            XCTAssertEqual(getFile.statusCode, 404, "a HEAD stub answers no GET (\(transport))")
            let getItems = try await send("GET", "/v1/items")
            XCTAssertEqual(getItems.statusCode, 404, "\(transport)")
        }
    }

    func testEveryPartOfADefinitionReachesTheEngine() async throws {
        let stubs = try Stubs {
            StubDefinition(
                name: "Everything",
                priority: 2,
                request: RequestDefinition(
                    method: "PURGE",
                    path: "/v1/cache/{key}",
                    host: .contains("stubkit"),
                    query: ["a": "1", "b": .present, "c": .absent],
                    headers: ["X-Token": .matches("t-[0-9]+", caseInsensitive: true)],
                    body: .form(["field": .equals("v", caseInsensitive: true)])
                ),
                response: ResponseDefinition(
                    status: 202,
                    headers: ["Set-Cookie": ["a=1", "b=2"], "X-Key": "{{request.path.key}}"],
                    body: "key {{request.path.key}}",
                    template: true,
                    delay: .random(.milliseconds(5)...(.milliseconds(10)))
                )
            )
            StubDefinition(request: .get("/bytes"), response: ResponseDefinition(bodyData: Data([0, 255])))
        }
        let client = try client(of: stubs, through: .urlProtocol)
        var request = URLRequest(url: URL(string: client.baseURL.absoluteString + "/v1/cache/k1?a=1&b")!)
        request.httpMethod = "PURGE"
        request.setValue("T-42", forHTTPHeaderField: "X-Token")
        request.httpBody = Data("field=V".utf8)
        let (data, response) = try await client.session.data(for: request)
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        XCTAssertEqual(http.statusCode, 202)
        XCTAssertEqual(http.value(forHTTPHeaderField: "X-Key"), "k1")
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "key k1")
        XCTAssertEqual(try stubs.requests.first?.stubName, "Everything")
        let (bytes, _) = try await client.session.data(from: client.baseURL.appendingPathComponent("bytes"))
        XCTAssertEqual(Array(bytes), [0, 255])
    }

    func testAWebhookIsWrittenAsTheStubFormatsAndCalledAfterTheAnswer() async throws {
        let arrived = expectation(description: "the webhook's call")
        let seen = Box<(body: String, depth: String?)?>(nil)
        var order = StubDefinition(request: .post("/v1/orders/{id}"), response: ResponseDefinition(status: 202))
        let stubs = try Stubs {
            StubDefinition(request: .post("/seen")) { request in
                seen.set((String(decoding: request.body, as: UTF8.self), request.header("X-Stubserver-Webhook-Depth")))
                arrived.fulfill()
                return .status(204)
            }
        }
        let server = try LocalStubServer(stubs)
        defer { server.stop() }
        order.webhooks = [
            WebhookDefinition(
                url: server.baseURL.absoluteString + "/seen",
                headers: ["X-A": "1"],
                body: ["order": "{{request.path.id}}"],
                template: true,
                delay: .milliseconds(50)
            )
        ]
        _ = try stubs.add(order)
        var request = URLRequest(url: server.baseURL.appendingPathComponent("v1/orders/7"))
        request.httpMethod = "POST"
        let (_, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 202)
        await fulfillment(of: [arrived], timeout: 10)
        XCTAssertEqual(seen.get()?.body, #"{"order":"7"}"#)
        XCTAssertEqual(seen.get()?.depth, "1")
    }

    func testAClosureComputesTheAnswer() async throws {
        for transport in Transport.allCases {
            let stubs = try Stubs {
                StubDefinition(request: .get("/v1/users/{id}")) { request in
                    .json(
                        [
                            "id": .string(request.pathParameters["id"] ?? ""),
                            "client": .string(request.header("X-Client-Id") ?? ""),
                        ],
                        headers: ["X-Computed": "yes"]
                    )
                }
                StubDefinition(request: .get("/v1/slow")) { _ in
                    try await Task.sleep(for: .milliseconds(50))
                    return .text("slow")
                }
                StubDefinition(request: .get("/v1/throws")) { _ in throw URLError(.cannotFindHost) }
                StubDefinition(request: .get("/v1/invalid")) { _ in .status(999) }
            }
            let client = try client(of: stubs, through: transport)
            let (data, response) = try await client.session.data(
                for: {
                    var request = URLRequest(url: client.baseURL.appendingPathComponent("v1/users/42"))
                    request.setValue("ios-app", forHTTPHeaderField: "X-Client-Id")
                    return request
                }()
            )
            XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"id":"42","client":"ios-app"}"#, "\(transport)")
            XCTAssertEqual(
                (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Computed"),
                "yes",
                "\(transport)"
            )
            let (slow, _) = try await client.session.data(from: client.baseURL.appendingPathComponent("v1/slow"))
            XCTAssertEqual(String(decoding: slow, as: UTF8.self), "slow", "\(transport)")
            let (thrown, thrownResponse) = try await client.session.data(
                from: client.baseURL.appendingPathComponent("v1/throws")
            )
            XCTAssertEqual((thrownResponse as? HTTPURLResponse)?.statusCode, 500, "\(transport)")
            XCTAssertTrue(String(decoding: thrown, as: UTF8.self).contains("threw"), "\(transport)")
            let (invalid, _) = try await client.session.data(from: client.baseURL.appendingPathComponent("v1/invalid"))
            XCTAssertTrue(
                String(decoding: invalid, as: UTF8.self).contains("$.status: expected an HTTP status from 100 to 599"),
                String(decoding: invalid, as: UTF8.self)
            )
            XCTAssertEqual(try stubs.requests.map(\.status), [200, 200, 500, 500], "\(transport)")
        }
    }

    func testErrorsSayWhatIsWrong() throws {
        XCTAssertThrowsError(try Stubs { StubDefinition(request: .get("no-slash"), response: .text("x")) }) { error in
            XCTAssertTrue(
                "\(error)".hasPrefix(#"StubDefinition: error: $[0].request.path: a path starts with "/""#),
                "\(error)"
            )
            XCTAssertEqual(error.localizedDescription, "\(error)", "not \"The operation could not be completed\"")
        }
        XCTAssertThrowsError(
            try Stubs {
                StubDefinition(request: RequestDefinition(body: .json(["a": .matches("(")])), response: .status(200))
            }
        ) { error in
            XCTAssertTrue(
                "\(error)".contains("$[0].request.body.json.a.matches: invalid regular expression"),
                "\(error)"
            )
        }
        XCTAssertThrowsError(try Stubs(directory: "/no/such/folder")) { error in
            XCTAssertFalse(error.localizedDescription.contains("could not be completed"), error.localizedDescription)
        }
    }
}
