/// A condition that a dialect's stubs carry beyond the native keys (WireMock's exact `url`, its
/// cookies, JSONPath and logical matchers...), or a native key that is rarely used (`rawQuery`).
/// The loader makes them, with everything they need compiled. Conditions run after the native
/// ones (method, path, host, query, headers, body), in order, and count in the ranking.
package protocol RequestCondition: Sendable {
    /// Whether the request meets it. `captures` are the path's `{name}` captures.
    func holds(_ facts: RequestFacts, captures: [String: String]) -> Bool
    /// What differed, for the near-miss report; asked only when `holds` is false.
    func mismatch(_ facts: RequestFacts, captures: [String: String]) -> Mismatch
    /// The condition says again what the path pattern says (WireMock's exact `url` is both a
    /// path and a query): when the path already failed, the report leaves it out.
    var restatesPath: Bool { get }
    /// Says the condition in the stub format (`StubEncoder.encodeModel`), or adds a gap saying
    /// what the format cannot say: an import writes stub files from the stubs it compiled.
    func encode(into request: inout EncodedRequest)
}

extension RequestCondition {
    package var restatesPath: Bool { false }

    package func encode(into request: inout EncodedRequest) {
        request.gap(.dropped, ["request"], "a condition the stub format has no key for is not written")
    }
}

/// Which format a stub was written in: it decides how ties between stubs of equal priority are
/// broken (see `StubRank`) and how the admin API shows the stub. The engine knows its own; a
/// dialect plugged in from outside declares its value beside its loader (`StubDialect.wiremock`).
package struct StubDialect: Hashable, Sendable {
    /// The dialect's name, as messages and the admin API say it.
    package let name: String
    /// Whether the more specific of two stubs of equal priority wins (the stub format), or only
    /// their order does (WireMock: the most recently added mapping wins).
    package let ranksBySpecificity: Bool

    package init(name: String, ranksBySpecificity: Bool) {
        self.name = name
        self.ranksBySpecificity = ranksBySpecificity
    }

    /// The stub format: the more specific stub wins, then file order.
    package static let native = StubDialect(name: "native", ranksBySpecificity: true)
}
