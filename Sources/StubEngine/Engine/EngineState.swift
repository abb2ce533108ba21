import HTTP1

/// Everything the engine shares between requests.
package struct EngineState: Sendable {
    var fileStubs: [Stub]
    var runtimeStubs: [Stub] = []
    /// File stubs taken out of service at run time (WireMock's admin API may remove or edit a
    /// mapping that came from a file); a reset brings them back.
    var hiddenFileStubIDs: Set<String> = []
    package var catalog: StubCatalog
    /// Stub id to the index of its next response in a sequence.
    var positions: [String: Int] = [:]
    /// Scenario name to state; absent means "Started".
    package var scenarios: [String: String] = [:]
    /// Changes whenever what a request can match changes (the stubs or a scenario state): an
    /// answer chosen outside the lock is only committed if this has not moved.
    var version: UInt64 = 0

    init(fileStubs: [Stub]) {
        self.fileStubs = fileStubs
        self.catalog = StubCatalog(fileStubs)
    }

    private var servedFileStubs: [Stub] {
        hiddenFileStubIDs.isEmpty ? fileStubs : fileStubs.filter { !hiddenFileStubIDs.contains($0.id) }
    }

    mutating func replaceFileStubs(_ stubs: [Stub]) {
        fileStubs = stubs
        catalog = StubCatalog(runtimeStubs + servedFileStubs)
        version &+= 1
    }

    mutating func setRuntimeStubs(_ stubs: [Stub]) {
        runtimeStubs = stubs
        catalog = StubCatalog(stubs + servedFileStubs)
        version &+= 1
    }

    mutating func setHiddenFileStubs(_ ids: Set<String>) {
        hiddenFileStubIDs = ids
        catalog = StubCatalog(runtimeStubs + servedFileStubs)
        version &+= 1
    }

    mutating func addRuntimeStubs(_ stubs: [Stub]) {
        runtimeStubs += stubs
        for stub in stubs { catalog.insert(stub) }
        version &+= 1
    }

    /// Which of a stateful stub's responses it gives now (an index into `responses`), advancing
    /// its sequence and scenario: called under the lock, after matching.
    mutating func advance(_ stub: Stub) -> Int {
        var index = 0
        if stub.responses.count > 1 {
            let position = positions[stub.id] ?? 0
            switch stub.afterLast {
            case .repeatLast:
                index = min(position, stub.responses.count - 1)
                positions[stub.id] = min(position + 1, stub.responses.count)
            case .cycle:
                index = position % stub.responses.count
                positions[stub.id] = (position + 1) % stub.responses.count
            }
        }
        if let rule = stub.scenario, let next = rule.then {
            scenarios[rule.name] = next
            version &+= 1
        }
        return index
    }
}
