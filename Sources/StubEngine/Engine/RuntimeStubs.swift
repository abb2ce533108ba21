#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON

/// Problems in stub JSON given at run time (admin API, Swift embedding): the same messages a
/// file gets, with "request body" (or the caller's label) as the file.
package struct StubProblems: Error, Sendable, CustomStringConvertible {
    package let problems: [StubProblem]
    package init(problems: [StubProblem]) { self.problems = problems }
    package var description: String {
        problems.filter { $0.severity == .error }.map(\.description).joined(separator: "\n")
    }
}

extension Engine {
    /// Decodes stub JSON (one stub, an array, or `{"stubs": [...]}`) as runtime stubs, exactly as
    /// a file is decoded (`Options.stubDecoder`). `ids` reuses ids (a replacement); otherwise
    /// each stub gets a new one.
    package func decodeRuntimeStubs(
        _ json: [UInt8],
        ids: [String]? = nil,
        label: String = "request body"
    ) -> Result<[Stub], StubProblems> {
        options.stubDecoder.decodeStubs(json, label: label, bodyFolder: runtimeBodyFolder) { index in
            let given = ids.flatMap { index < $0.count ? $0[index] : nil }
            return .runtime(id: given ?? UUID().uuidString.lowercased())
        }
    }

    /// Decodes and adds runtime stubs; returns their ids.
    @discardableResult
    package func addRuntimeStubs(json: [UInt8], label: String = "request body") throws(StubProblems) -> [String] {
        let stubs = try decodeRuntimeStubs(json, label: label).get()
        addRuntimeStubs(stubs)
        return stubs.map(\.id)
    }

    /// A response (the `response` object of a stub, as JSON) decoded as a file's is and rendered
    /// for one request: how code-computed responses answer (StubKit's closure responders), so a
    /// mistake in one gets the same message a file would. `captures` are the path's `{name}`s,
    /// for templates.
    package func renderResponse(
        json: [UInt8],
        for request: IncomingRequest,
        captures: [String: String],
        label: String
    ) -> Result<OutgoingResponse, StubProblems> {
        options.stubDecoder.decodeComputedResponse(
            json,
            label: label,
            bodyFolder: runtimeBodyFolder,
            pathParameters: Set(captures.keys)
        ).map { response in
            response.makeResponse(
                TemplateContext(
                    facts: RequestFacts(request),
                    captures: captures,
                    fallbackBaseURL: fallbackBaseURL.value
                )
            )
        }
    }

    /// Where the `bodyFile`s of stub JSON given at run time are: the stub folder, or the
    /// current directory when there is none.
    private var runtimeBodyFolder: URL {
        URL(fileURLWithPath: options.directory ?? FileManager.default.currentDirectoryPath, isDirectory: true)
    }
}

/// The engine's stubs as a store addressed by id, whatever their origin: what a dialect's admin
/// API (WireMock's mappings) needs beyond the runtime stubs of the engine's own.
extension Engine {
    /// Adds or replaces stubs by id, whatever their origin (WireMock's mapping store): a file
    /// stub with the same id is taken out of service (until a reset), a runtime one replaced in place.
    package func putStubs(_ stubs: [Stub]) {
        state.withLock { s in
            let ids = Set(stubs.map(\.id))
            let replacing =
                s.runtimeStubs.contains { ids.contains($0.id) } || s.fileStubs.contains { ids.contains($0.id) }
            guard replacing else {
                s.addRuntimeStubs(stubs)
                return
            }
            var runtime = s.runtimeStubs
            for stub in stubs {
                if let i = runtime.firstIndex(where: { $0.id == stub.id }) {
                    runtime[i] = stub
                } else {
                    runtime.append(stub)
                }
            }
            s.hiddenFileStubIDs.formUnion(s.fileStubs.lazy.map(\.id).filter(ids.contains))
            s.setRuntimeStubs(runtime)
        }
    }

    /// Removes stubs by id, whatever their origin (file stubs are taken out of service until a
    /// reset); returns how many there were.
    @discardableResult
    package func removeStubs(ids: Set<String>) -> Int {
        state.withLock { s in
            let runtime = s.runtimeStubs.filter { !ids.contains($0.id) }
            let files = s.fileStubs.lazy.map(\.id).filter(ids.contains)
            let removed = s.runtimeStubs.count - runtime.count + Set(files).subtracting(s.hiddenFileStubIDs).count
            s.hiddenFileStubIDs.formUnion(files)
            s.setRuntimeStubs(runtime)
            return removed
        }
    }

    /// New file stubs (a folder just saved into), and the runtime stubs they were made from
    /// removed, in one step: no request sees both or neither.
    package func replaceFileStubs(_ stubs: [Stub], removingRuntime ids: Set<String>) {
        state.withLock { s in
            s.runtimeStubs.removeAll { ids.contains($0.id) }
            s.replaceFileStubs(stubs)
        }
    }

    /// The stubs from files all served again, none added at run time (WireMock's
    /// `POST /__admin/mappings/reset`); the journal, sequences and scenarios are kept.
    package func restoreFileStubs() {
        state.withLock { s in
            s.hiddenFileStubIDs = []
            s.setRuntimeStubs([])
        }
    }
}
