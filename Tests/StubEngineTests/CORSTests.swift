import HTTP1
import NativeStubs
@testable import StubEngine
import XCTest

final class CORSTests: XCTestCase {
    let stubs =
        #"""
        [{"name": "users", "request": {"method": ["GET", "OPTIONS"], "path": "/users"}, "response": {"headers": \#
        {"X-Total": "2", "ETag": "\"v1\""}, "body": [1, 2]}}]
        """#

    func testPreflightIsAnsweredWhenCORSIsOn() {
        let e = Engine(stubs: loadStubs(stubs), cors: CORSPolicy(maxAgeSeconds: 600))
        let outcome = e.handle(
            makeRequest(
                "OPTIONS",
                "/users",
                headers: [
                    ("Origin", "http://localhost:3000"), ("Access-Control-Request-Method", "PUT"),
                    ("Access-Control-Request-Headers", "content-type, x-api-key"),
                ]
            )
        )
        XCTAssertTrue(outcome.isPreflight)
        XCTAssertNil(outcome.stub)
        let headers = outcome.answered.prepared.headers
        XCTAssertEqual(outcome.answered.prepared.status, 204)
        XCTAssertEqual(headers["Access-Control-Allow-Origin"], "http://localhost:3000")
        XCTAssertEqual(headers["Access-Control-Allow-Credentials"], "true")
        XCTAssertTrue(headers["Access-Control-Allow-Methods"]?.contains("PUT") ?? false)
        XCTAssertEqual(headers["Access-Control-Allow-Headers"], "content-type, x-api-key")
        XCTAssertEqual(headers["Access-Control-Max-Age"], "600")
    }

    func testEveryResponseGetsCORSHeadersExposingTheStubsHeaders() {
        let e = Engine(stubs: loadStubs(stubs), cors: CORSPolicy())
        let withOrigin = e.handle(makeRequest("GET", "/users", headers: [("Origin", "https://app.example")])).answered
        XCTAssertEqual(withOrigin.prepared.headers["Access-Control-Allow-Origin"], "https://app.example")
        XCTAssertEqual(withOrigin.prepared.headers["Access-Control-Expose-Headers"], "X-Total, ETag, Content-Type")
        XCTAssertEqual(withOrigin.prepared.headers["Vary"], "Origin")
        XCTAssertTrue(
            String(decoding: withOrigin.prepared.head, as: UTF8.self).contains(
                "\r\nAccess-Control-Allow-Origin: https://app.example\r\n"
            )
        )
        XCTAssertEqual(withOrigin.bodyText, "[1,2]")
        let noOrigin = e.handle(makeRequest("GET", "/users")).answered
        XCTAssertEqual(noOrigin.prepared.headers["Access-Control-Allow-Origin"], "*")
        let miss = e.handle(makeRequest("GET", "/nope", headers: [("Origin", "https://app.example")])).answered
        XCTAssertEqual(miss.prepared.status, 404)
        XCTAssertEqual(
            miss.prepared.headers["Access-Control-Allow-Origin"],
            "https://app.example",
            "a browser must be able to read the near-miss report"
        )
    }

    func testWithoutCORSPreflightsAreMatchedLikeAnyRequest() {
        let e = Engine(stubs: loadStubs(stubs))
        let outcome = e.handle(
            makeRequest(
                "OPTIONS",
                "/users",
                headers: [("Origin", "http://x"), ("Access-Control-Request-Method", "GET")]
            )
        )
        XCTAssertFalse(outcome.isPreflight)
        XCTAssertEqual(outcome.stub?.name, "users")
        XCTAssertNil(outcome.answered.prepared.headers["Access-Control-Allow-Origin"])
    }

    func testPlainOPTIONSIsNotAPreflight() {
        let e = Engine(stubs: loadStubs(stubs), cors: CORSPolicy())
        XCTAssertEqual(e.handle(makeRequest("OPTIONS", "/users")).stub?.name, "users")
    }
}
