import Foundation
@testable import StubEngine
import Testing

/// A stub that can never answer, because one earlier in file order has the same conditions,
/// priority and scenario state, is a warning with both places (issue 36: a hand-written stub and
/// a recording of the same request). Anything that tells them apart is no warning.
@Suite struct ShadowedStubsTests {
    @Test func theLaterOfTwoStubsWithTheSameConditionsIsReported() throws {
        let folder = TemporaryFolder()
        folder.write(
            "orders.json",
            #"{"name": "Orders", "request": {"method": "POST", "path": "/api/orders", "headers": {"X-A": "1"}}, "#
                + #""response": {"status": 201}}"#
        )
        folder.write(
            "recorded/post-api-orders.json",
            #"[{"request": {"path": "/api/orders", "method": "POST", "headers": {"x-a": "1"}, "_note": "n"}, "#
                + #""response": {"status": 501}}]"#
        )
        let result = folder.load()
        #expect(result.errors.isEmpty)
        let warning = try #require(result.warnings.first)
        #expect(result.warnings.count == 1)
        #expect(warning.file.hasSuffix("recorded/post-api-orders.json"))
        #expect(warning.position?.line == 1 && warning.position?.column == 2)
        #expect(warning.message.contains("never answers: \"Orders\" ("), "\(warning.message)")
        #expect(warning.message.contains("orders.json:1:1)"), "\(warning.message)")
    }

    @Test func priorityConditionsOrScenarioStateTellStubsApart() {
        let folder = TemporaryFolder()
        folder.write(
            "stubs.json",
            """
            [
              {"request": {"path": "/a"}, "response": {}},
              {"request": {"path": "/a"}, "priority": 1, "response": {}},
              {"request": {"path": "/a", "method": "GET"}, "response": {}},
              {"request": {"path": "/a"}, "scenario": {"name": "s", "when": "x"}, "response": {}},
              {"request": {"path": "/a"}, "scenario": {"name": "s", "when": "y"}, "response": {}},
              {"request": {"path": "/a", "query": {"q": "1"}}, "response": {}}
            ]
            """
        )
        #expect(folder.load().warnings.isEmpty)
    }
}
