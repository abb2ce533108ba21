import Foundation
import JSON
import StubEngine
import StubImport
import XCTest
import YAML

/// WireMock's own admin payload examples (../shared/corpora/wiremock/admin-examples, YAML read
/// with StubImport's reader): the ones that describe supported features are accepted where a
/// client sends them and matched in shape where a client reads them; the record and snapshot
/// specs are refused with a reason. Every example is walked; a new one fails until it is placed.
final class WireMockAdminExamplesTests: XCTestCase {
    func example(_ name: String) throws -> String {
        let folder = try WireMockHarness.corpus("admin-examples")
        let node = try YAMLReader.parse(String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
        return JSONSerializer.string(node)
    }

    func keys(_ json: String) throws -> Set<String> {
        Set((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?.keys.map { $0 } ?? [])
    }

    func object(_ any: Any?) -> [String: Any] { any as? [String: Any] ?? [:] }

    func testEveryExampleIsWalked() async throws {
        let folder = try WireMockHarness.corpus("admin-examples")
        let walked: Set<String> = [
            "by-metadata-request.yaml", "health.yaml", "logged-request.yaml", "near-misses.yaml", "record-spec.yaml",
            "recorded-stub-mappings.yaml", "request-pattern.yaml", "request.yaml", "requests.yaml", "serve-events.yaml",
            "snapshot-spec.yaml", "stub-mapping-no-id.yaml", "stub-mapping-with-id.yaml", "stub-mappings.yaml",
        ]
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)), walked)

        let h = try WireMockHarness(self, mappings: [:])
        // Mappings a client creates: without and with an id, and a recorded set imported.
        let noID = try await h.json("POST", "/__admin/mappings", try example("stub-mapping-no-id.yaml"))
        XCTAssertEqual(noID.status, 201)
        XCTAssertNotNil(UUID(uuidString: object(noID.json)["id"] as? String ?? ""))
        XCTAssertEqual(try h.send("GET", "/some/thing").text, "Hello world!")
        let withID = try await h.json("POST", "/__admin/mappings", try example("stub-mapping-with-id.yaml"))
        XCTAssertEqual(object(withID.json)["id"] as? String, "76ada7b0-49ae-4229-91c4-396a36f18e09")
        let thing = try h.send("GET", "/some/thing", headers: [("Accept", "text/plain")])
        XCTAssertEqual(thing.header("Content-Type"), "text/plain")
        let recorded = try await h.json("POST", "/__admin/mappings/import", try example("recorded-stub-mappings.yaml"))
        XCTAssertEqual(recorded.status, 200)
        XCTAssertEqual(
            try h.send("GET", "/recordables/123").text,
            "{\n  \"message\": \"Congratulations on your first recording!\"\n}"
        )
        // A listing as WireMock writes one ({"meta", "mappings"}) imports too; its equalToXml
        // mapping loads and never matches (XML is not supported).
        let listing = try await h.json("POST", "/__admin/mappings/import", try example("stub-mappings.yaml"))
        XCTAssertEqual(listing.status, 200)
        XCTAssertEqual(
            try h.send("GET", "/search?q=things", headers: [("Accept", "application/json")]).text,
            #"["thing1","thing2"]"#
        )
        XCTAssertEqual(try h.send("POST", "/some/things", body: "<stuff />").status, 404)

        // Finding requests by a pattern, and mappings by metadata.
        let pattern = try example("request-pattern.yaml")
        _ = try h.send("POST", "/resource", headers: [("Content-Type", "application/xml")], body: "<a/>")
        let count = try await h.json("POST", "/__admin/requests/count", pattern)
        XCTAssertEqual(object(count.json)["count"] as? Int, 1)
        let byMetadata = try await h.json(
            "POST",
            "/__admin/mappings/find-by-metadata",
            try example("by-metadata-request.yaml")
        )
        XCTAssertEqual(byMetadata.status, 200)
        XCTAssertEqual(object(object(byMetadata.json)["meta"])["total"] as? Int, 0)

        // What clients read: serve events, logged requests, health, near misses, in WireMock's shapes.
        let events = object(try await h.json("GET", "/__admin/requests").json)
        XCTAssertTrue(try keys(example("serve-events.yaml")).isSubset(of: Set(events.keys)), "\(events.keys)")
        let event = try XCTUnwrap((events["requests"] as? [[String: Any]])?.last)
        let request = try example("request.yaml")
        XCTAssertTrue(try keys(request).isSubset(of: Set(event.keys)), "\(event.keys)")
        let logged = try XCTUnwrap(event["request"] as? [String: Any])
        XCTAssertTrue(try keys(example("logged-request.yaml")).isSubset(of: Set(logged.keys)), "\(logged.keys)")
        let found = object(try await h.json("POST", "/__admin/requests/find", pattern).json)
        let listed = try XCTUnwrap((found["requests"] as? [[String: Any]])?.first)
        let requestsExample = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(example("requests.yaml").utf8)) as? [String: Any])?["requests"]
                as? [[String: Any]]
        )
        XCTAssertTrue(Set(requestsExample[0].keys).isSubset(of: Set(listed.keys)), "\(listed.keys)")
        let health = object(try await h.json("GET", "/__admin/health").json)
        XCTAssertEqual(Set(health.keys), try keys(example("health.yaml")))
        XCTAssertEqual(health["status"] as? String, "healthy")

        let nearMiss = object(
            try await h.json("POST", "/__admin/near-misses/request", try example("logged-request.yaml")).json
        )
        XCTAssertNotNil(nearMiss["nearMisses"] as? [Any])
        let nearMissExample = try XCTUnwrap(
            object(try JSONSerialization.jsonObject(with: Data(example("near-misses.yaml").utf8)))["nearMisses"]
                as? [[String: Any]]
        )
        let byPattern = object(
            try await h.json(
                "POST",
                "/__admin/near-misses/request-pattern",
                #"{"url": "/almostmatch", "method": "GET"}"#
            ).json
        )
        let first = try XCTUnwrap((byPattern["nearMisses"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(first.keys), Set(nearMissExample[0].keys))

        // Recording and snapshots are WireMock features stubserver does its own way: refused
        // with where to look.
        for (path, file) in [
            ("/__admin/recordings/start", "record-spec.yaml"), ("/__admin/recordings/snapshot", "snapshot-spec.yaml"),
        ] {
            let answer = try await h.json("POST", path, try example(file))
            XCTAssertEqual(answer.status, 501, file)
            let message = ((object(answer.json)["errors"] as? [[String: Any]])?.first?["title"] as? String) ?? ""
            XCTAssertTrue(message.contains("stubserver record"), message)
        }
    }
}
