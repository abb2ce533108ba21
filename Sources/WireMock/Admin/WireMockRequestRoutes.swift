#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import Handlebars
import JSON
import StubEngine

/// `/__admin/requests` as WireMock has it (serve events newest first with `meta.total`, find,
/// count, remove by id or pattern or metadata, unmatched, their near misses) and
/// `/__admin/near-misses/request` and `/request-pattern`.
struct WireMockRequestRoutes {
    let engine: Engine
    let dialect: WireMockDialect

    func handle(_ request: IncomingRequest, rest: String) -> OutgoingResponse {
        switch (request.method, rest) {
        case ("GET", "/requests"): return list(request)
        case ("DELETE", "/requests"), ("POST", "/requests/reset"):
            engine.journal.clear()
            return WireMockAdminJSON.empty
        case ("POST", "/requests/find"), ("POST", "/requests/count"), ("POST", "/requests/remove"):
            let entries: [JournalEntry]
            switch matching(request.body) {
            case .failure(let failure): return WireMockAdminJSON.problems(failure.problems)
            case .success(let matched): entries = matched
            }
            if rest == "/requests/count" {
                return WireMockAdminJSON.json(
                    200,
                    .object([
                        ("count", .number(entries.count)), ("requestJournalDisabled", .bool(!engine.journal.isEnabled)),
                    ])
                )
            }
            if rest == "/requests/find" { return loggedRequests(entries) }
            let ids = Set(entries.map(\.id))
            return serveEvents("serveEvents", engine.journal.remove { ids.contains($0.id) })
        case ("POST", "/requests/remove-by-metadata"): return removeByMetadata(request)
        case ("GET", "/requests/unmatched"): return loggedRequests(engine.journal.entries.filter(\.isUnmatched))
        case ("GET", "/requests/unmatched/near-misses"):
            return nearMisses(
                engine.journal.entries.filter(\.isUnmatched).flatMap { entry in
                    (entry.nearMiss?.candidates ?? []).map { (entry, $0) }
                }
            )
        case ("POST", "/near-misses/request"): return nearMissesForRequest(request)
        case ("POST", "/near-misses/request-pattern"): return nearMissesForPattern(request)
        default: break
        }
        let id = String(rest.dropFirst("/requests/".count))
        guard rest.hasPrefix("/requests/"), !id.contains("/") else {
            return WireMockAdmin(engine: engine, dialect: dialect).notFound(request)
        }
        guard let entryID = WireMockAdminJSON.entryID(id) ?? Int(id) else {
            // An id no entry can have (not a UUID, too long a number): not found, not a 405.
            guard request.method == "GET" || request.method == "DELETE" else {
                return WireMockAdmin(engine: engine, dialect: dialect).notFound(request)
            }
            return WireMockAdminJSON.error(404, "no request with id \(StubProblem.bounded(id)) in the journal")
        }
        switch request.method {
        case "GET":
            guard let entry = engine.journal.entry(id: entryID) else {
                return WireMockAdminJSON.error(404, "no request with id \(id) in the journal")
            }
            return WireMockAdminJSON.json(200, serveEvent(entry))
        case "DELETE":
            engine.journal.remove { $0.id == entryID }
            return WireMockAdminJSON.empty
        default:
            return WireMockAdmin(engine: engine, dialect: dialect).notFound(request)
        }
    }

    private func serveEvent(_ entry: JournalEntry) -> JSONNode {
        WireMockAdminJSON.serveEvent(
            entry,
            stub: entry.stubID.flatMap { id in engine.catalog.stubs.first { $0.id == id } }
        )
    }

    private func serveEvents(_ key: String, _ entries: [JournalEntry]) -> OutgoingResponse {
        WireMockAdminJSON.json(200, .object([(key, .array(entries.map(serveEvent)))]))
    }

    private func loggedRequests(_ entries: [JournalEntry]) -> OutgoingResponse {
        WireMockAdminJSON.json(
            200,
            .object([
                ("requests", .array(entries.map(WireMockAdminJSON.loggedRequest))),
                ("requestJournalDisabled", .bool(!engine.journal.isEnabled)),
            ])
        )
    }

    /// Newest first, as WireMock lists them; `limit`, `since` (an ISO date) and `unmatched`.
    private func list(_ request: IncomingRequest) -> OutgoingResponse {
        var entries = Array(engine.journal.entries.reversed())
        let total = entries.count
        if request.queryValues("unmatched").first == "true" { entries = entries.filter(\.isUnmatched) }
        if let since = request.queryValues("since").first {
            // The one ISO 8601 reader (templates' parseDate uses it too); no zone written is UTC.
            guard let ms = JavaDateFormat.parseISO8601(since, zone: .utc) else {
                return WireMockAdminJSON.error(400, "since is an ISO 8601 date such as 2024-01-31T12:00:00Z")
            }
            entries = entries.filter { $0.receivedAtMilliseconds >= ms }
        }
        if let limit = request.queryValues("limit").first.flatMap(Int.init), limit >= 0 {
            entries = Array(entries.prefix(limit))
        }
        return WireMockAdminJSON.json(
            200,
            .object([
                ("requests", .array(entries.map(serveEvent))),
                ("meta", .object([("total", .number(total))])),
                ("requestJournalDisabled", .bool(!engine.journal.isEnabled)),
            ])
        )
    }

    /// A WireMock request pattern (an empty body matches everything).
    func pattern(_ body: [UInt8]) -> Result<RequestPattern, StubProblems> {
        guard !body.isEmpty else { return .success(RequestPattern()) }
        let node: JSONNode
        do {
            node = try JSONParser.parse(body)
        } catch {
            return .failure(
                StubProblems(problems: [
                    StubProblem(.error, file: "request body", position: error.position, message: error.message)
                ])
            )
        }
        var context = engine.wiremockContext(label: "request body", dialect)
        guard let request = WireMockReader.readRequest(&context, node, "$") else {
            return .failure(StubProblems(problems: context.problems))
        }
        let pattern = WireMockStubBuilder.pattern(request, &context, "$")
        return context.hasErrors ? .failure(StubProblems(problems: context.problems)) : .success(pattern)
    }

    private func matching(_ body: [UInt8]) -> Result<[JournalEntry], StubProblems> {
        pattern(body).map { pattern in
            engine.journal.clientEntries.filter { RequestMatcher.match(pattern, RequestFacts($0.request)) != nil }
        }
    }

    private func removeByMetadata(_ request: IncomingRequest) -> OutgoingResponse {
        guard let node = try? JSONParser.parse(request.body) else {
            return WireMockAdminJSON.error(400, "expected a matcher")
        }
        var context = engine.wiremockContext(label: "request body", dialect)
        guard let matcher = WireMockPatternReader.pattern(&context, node, "$"), !context.hasErrors else {
            return WireMockAdminJSON.problems(context.problems)
        }
        let tagged = Set(
            engine.wiremockMappings.filter {
                $0.definition?["metadata"].map { matcher.matches(JSONSerializer.string($0)) } ?? false
            }.map(\.id)
        )
        return serveEvents("serveEvents", engine.journal.remove { $0.stubID.map(tagged.contains) ?? false })
    }

    private func nearMisses(_ pairs: [(JournalEntry, NearMissReport.Candidate)]) -> OutgoingResponse {
        WireMockAdminJSON.json(
            200,
            .object([
                (
                    "nearMisses",
                    .array(
                        pairs.prefix(50).map { entry, candidate in
                            let stub = engine.catalog.stubs.first { $0.id == candidate.id }
                            return .object([
                                ("request", WireMockAdminJSON.loggedRequest(entry)),
                                (
                                    "stubMapping",
                                    stub.map(WireMockAdminJSON.mapping)
                                        ?? .object([("id", .string(candidate.id)), ("name", .string(candidate.name))])
                                ),
                                (
                                    "matchResult",
                                    .object([
                                        (
                                            "distance",
                                            distance(candidate.mismatches.count, stub?.request.conditionCount ?? 1)
                                        )
                                    ])
                                ),
                            ])
                        }
                    )
                )
            ])
        )
    }

    private func distance(_ failed: Int, _ conditions: Int) -> JSONNode {
        .number(min(1, Double(failed) / Double(max(conditions, failed, 1))), decimals: 4)
    }

    /// The body is a logged request (`url`, `method`, `headers`, `body`): the stubs closest to it.
    private func nearMissesForRequest(_ request: IncomingRequest) -> OutgoingResponse {
        guard let node = try? JSONParser.parse(request.body), let url = node["url"]?.string, url.hasPrefix("/") else {
            return WireMockAdminJSON.error(
                400,
                "expected a logged request such as {\"url\": \"/path\", \"method\": \"GET\"}"
            )
        }
        var headers = HeaderFields()
        for member in node["headers"]?.members ?? [] {
            for value in member.value.elements ?? [member.value] {
                if let s = value.string { headers.add(member.key, s) }
            }
        }
        let body =
            node["body"]?.string.map { Array($0.utf8) } ?? node["bodyAsBase64"]?.string.flatMap {
                Data(base64Encoded: $0)
            }.map { Array($0) } ?? []
        guard
            let logged = try? IncomingRequest.make(
                method: node["method"]?.string ?? "GET",
                target: url,
                headers: headers,
                body: body,
                peer: "",
                authority: headers["Host"]
            )
        else {
            return WireMockAdminJSON.error(400, "the url \(url) is not a valid request target")
        }
        let report = engine.nearMisses(for: logged)
        let entry = JournalEntry(
            id: 0,
            receivedAtMilliseconds: Int(Date().timeIntervalSince1970 * 1000),
            request: logged,
            body: logged.body,
            bodySize: logged.body.count,
            stub: nil,
            status: 0,
            durationMilliseconds: 0,
            nearMiss: nil,
            proxy: nil,
            response: nil
        )
        return nearMisses(report.candidates.map { (entry, $0) })
    }

    /// The body is a request pattern: the journal's requests closest to matching it.
    private func nearMissesForPattern(_ request: IncomingRequest) -> OutgoingResponse {
        let pattern: RequestPattern
        switch self.pattern(request.body) {
        case .failure(let failure): return WireMockAdminJSON.problems(failure.problems)
        case .success(let p): pattern = p
        }
        let scored = engine.journal.clientEntries.map { entry in
            (entry, RequestMatcher.mismatches(pattern, RequestFacts(entry.request)).count)
        }
        .filter { $0.1 > 0 }.sorted { $0.1 < $1.1 }.prefix(3)
        let requestPattern = (try? JSONParser.parse(request.body)) ?? .object([])
        return WireMockAdminJSON.json(
            200,
            .object([
                (
                    "nearMisses",
                    .array(
                        scored.map { entry, failed in
                            .object([
                                ("request", WireMockAdminJSON.loggedRequest(entry)),
                                ("requestPattern", requestPattern),
                                ("matchResult", .object([("distance", distance(failed, pattern.conditionCount))])),
                            ])
                        }
                    )
                )
            ])
        )
    }
}
