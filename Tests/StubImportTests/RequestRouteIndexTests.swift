import HTTP1
import StubEngine
@testable import StubImport
import XCTest

/// Which documented route a request targets: the best fit by path among the routes that
/// document its method, the best fit overall only to say the method is not documented.
final class RequestRouteIndexTests: XCTestCase {
    private func index(_ paths: String) throws -> (RequestRouteIndex, RouteTable) {
        let document = try openAPI("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n" + paths)
        let routes = RouteTable(OperationCatalog.operations(in: document).operations)
        return (RequestRouteIndex(routes), routes)
    }

    private func matched(
        _ index: (RequestRouteIndex, RouteTable),
        _ method: String,
        _ path: String
    ) -> String? {
        index.0.match(path, method: method).map { index.1.routes[$0.route].path }
    }

    func testTwoTemplatesOfOneShapeEachWithItsOwnMethod() throws {
        // Temporal writes `GET .../workflows/{execution.workflow_id}` and
        // `POST .../workflows/{workflowId}`: the same shape, one method each.
        let index = try index(
            """
              /w/{execution.workflow_id}: {get: {responses: {'200': {description: ok}}}}
              /w/{workflowId}: {post: {responses: {'200': {description: ok}}}}
            """
        )
        XCTAssertEqual(matched(index, "GET", "/w/7"), "/w/{execution.workflow_id}")
        XCTAssertEqual(matched(index, "POST", "/w/7"), "/w/{workflowId}", "not the first of equal fits")
        XCTAssertEqual(index.0.match("/w/7", method: "POST")?.values, ["workflowId": "7"], "its own names")
        XCTAssertEqual(matched(index, "HEAD", "/w/7"), "/w/{execution.workflow_id}", "HEAD answered by GET")
        XCTAssertEqual(matched(index, "PUT", "/w/7"), "/w/{execution.workflow_id}", "none has it: the first")
    }

    func testALiteralSegmentWinsOnlyWhenItsRouteHasTheMethod() throws {
        let index = try index(
            """
              /users/me: {get: {responses: {'200': {description: ok}}}}
              /users/{id}: {delete: {responses: {'204': {description: gone}}}}
            """
        )
        XCTAssertEqual(matched(index, "GET", "/users/me"), "/users/me", "both fit and have it: the literal")
        XCTAssertEqual(matched(index, "DELETE", "/users/me"), "/users/{id}", "only the parameter has DELETE")
        XCTAssertEqual(index.0.match("/users/me", method: "DELETE")?.values, ["id": "me"])
        XCTAssertEqual(matched(index, "PUT", "/users/me"), "/users/me", "none has it: the best fit")
        XCTAssertEqual(matched(index, "GET", "/users/7"), "/users/{id}", "the only fit, to report the method")
        XCTAssertNil(matched(index, "GET", "/users/7/x"), "no template of that length")
        XCTAssertNil(matched(index, "GET", "users/me"), "not a path")
    }

    func testAParameterOfTheRightMethodBeatsAMoreLiteralOneWithout() throws {
        let index = try index(
            """
              /a/{x}/c: {get: {responses: {'200': {description: ok}}}}
              /a/b/{y}: {post: {responses: {'200': {description: ok}}}}
              /a/{x}/{y}: {post: {responses: {'200': {description: ok}}}}
            """
        )
        XCTAssertEqual(matched(index, "GET", "/a/b/c"), "/a/{x}/c")
        XCTAssertEqual(matched(index, "POST", "/a/b/c"), "/a/b/{y}", "the most literal of those with POST")
        XCTAssertEqual(matched(index, "POST", "/a/z/c"), "/a/{x}/{y}")
    }

    func testTheCheckReportsOnlyMethodsThatNoFittingRouteDocuments() throws {
        let contract = OpenAPIContract(
            document: try openAPI(
                """
                openapi: 3.1.0
                info: {title: t, version: '1'}
                paths:
                  /users/me: {get: {responses: {'200': {description: ok}}}}
                  /users/{id}: {delete: {responses: {'204': {description: gone}}}}
                """
            )
        )
        func check(_ method: String, _ target: String) throws -> ContractReport {
            let request = try IncomingRequest.make(
                method: method,
                target: target,
                headers: HeaderFields([]),
                body: [],
                peer: "",
                authority: nil
            )
            return contract.check(RequestFacts(request))
        }
        let delete = try check("DELETE", "/users/me")
        XCTAssertEqual(delete.violations.map(\.line), [], "DELETE /users/{id} documents it")
        XCTAssertEqual(delete.operation, "DELETE /users/{id}")
        let put = try check("PUT", "/users/me")
        XCTAssertEqual(put.violations.map(\.kind), [.operation])
        XCTAssertTrue(put.violations.first?.message.contains("PUT is not documented for /users/me") ?? false)
    }
}
