import HTTP1

/// Why no stub answered a request: the closest stubs and, for each, what differed.
/// Clearer than a diff of whole requests: one line per failed condition, expected against actual.
public struct NearMissReport: Sendable {
    public struct Candidate: Sendable {
        public let name: String
        public let source: String
        public let mismatches: [Mismatch]
    }

    public let method: String
    public let target: String
    public let candidates: [Candidate]
    public let stubCount: Int

    /// The up to `limit` stubs that came closest, fewest and least important failures first.
    static func build(for facts: RequestFacts, in catalog: StubCatalog, limit: Int = 3) -> NearMissReport {
        // Method and path failures weigh more than a missing header: a stub for the right
        // endpoint with the wrong header is what the user most likely meant.
        func weight(_ m: Mismatch) -> Int {
            switch m.condition {
            case "path": 4
            case "method": 3
            default: 1
            }
        }
        var scored: [(weight: Int, stub: Stub, mismatches: [Mismatch])] = []
        scored.reserveCapacity(catalog.count)
        for stub in catalog.stubs {
            let mismatches = RequestMatcher.mismatches(stub.request, facts)
            guard !mismatches.isEmpty else { continue }
            scored.append((mismatches.reduce(0) { $0 + weight($1) }, stub, mismatches))
        }
        scored.sort { $0.weight != $1.weight ? $0.weight < $1.weight : $0.stub.rank < $1.stub.rank }
        // A stub for another method and another path is not "close" once anything closer exists.
        if let lightest = scored.first?.weight, lightest < 7 { scored.removeAll { $0.weight >= 7 } }
        // Among the lightest few, prefer paths that look like the request's (a typo in the path).
        let shortlist = scored.prefix(max(limit * 4, 12)).map { entry -> (Int, Int, Stub, [Mismatch]) in
            let distance = entry.stub.request.path.map { Suggestion.editDistance($0.source, facts.request.path) } ?? 0
            return (entry.weight, distance, entry.stub, entry.mismatches)
        }
        let closest = shortlist.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.prefix(limit)
        return NearMissReport(method: facts.request.method, target: facts.request.target,
                              candidates: closest.map { Candidate(name: $0.2.name, source: $0.2.source.description, mismatches: $0.3) },
                              stubCount: catalog.count)
    }

    /// For the console and for clients that do not accept JSON.
    public var text: String {
        var lines = ["No stub matched \(method) \(target)"]
        if candidates.isEmpty {
            lines.append(stubCount == 0 ? "There are no stubs loaded." : "No stub came close.")
        } else {
            lines.append("Closest stubs, and what differed:")
            for (i, candidate) in candidates.enumerated() {
                lines.append(candidate.name == candidate.source
                             ? "  \(i + 1). \(candidate.source)"
                             : "  \(i + 1). \"\(candidate.name)\" (\(candidate.source))")
                for m in candidate.mismatches {
                    lines.append("       \(m.condition): expected \(m.expected), got \(m.actual)")
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public var json: String {
        var out = "{\"error\":\"no stub matched\",\"request\":{\"method\":\(JSONSerializer.quoted(method)),\"target\":\(JSONSerializer.quoted(target))},\"closest\":["
        out += candidates.map { c in
            "{\"name\":\(JSONSerializer.quoted(c.name)),\"source\":\(JSONSerializer.quoted(c.source)),\"mismatches\":["
                + c.mismatches.map { m in
                    "{\"condition\":\(JSONSerializer.quoted(m.condition)),\"expected\":\(JSONSerializer.quoted(m.expected)),\"actual\":\(JSONSerializer.quoted(m.actual))}"
                }.joined(separator: ",") + "]}"
        }.joined(separator: ",")
        return out + "]}"
    }

    /// JSON when the client says it accepts JSON, text otherwise.
    func response(for request: HTTPRequest) -> HTTPResponse {
        var headers = HTTPHeaders()
        let wantsJSON = request.headers.values("Accept").contains { $0.lowercased().contains("json") }
        headers.add("Content-Type", wantsJSON ? "application/json" : "text/plain; charset=utf-8")
        headers.add("X-Stubserver-Match", "none")
        return HTTPResponse(status: 404, headers: headers, body: Array((wantsJSON ? json : text).utf8))
    }
}
