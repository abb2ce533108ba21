#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Stub JSON read into the engine's model at run time: stubs added through the admin API or
/// made from StubKit's definitions, the request pattern a verification checks the journal
/// against, a response computed in code. The engine knows no stub format, as it knows no
/// dialect: the native one (the `NativeStubs` module's `NativeStubDecoder`) is given to it where
/// it is made (`Engine.Options.stubDecoder`), so a stub means the same and a mistake gets the same
/// message whether it came from a file or not.
package protocol StubDecoder: Sendable {
    /// Stub JSON (one stub, an array, or `{"stubs": [...]}`) decoded as a file is. `label` names
    /// it in messages, `bodyFolder` is where its `bodyFile`s are, and `source` says where the
    /// stub at an index came from. Every problem when any is an error.
    func decodeStubs(
        _ json: [UInt8],
        label: String,
        bodyFolder: URL,
        source: @escaping (Int) -> StubSource
    ) -> Result<[Stub], StubProblems>

    /// A stub's `request` object: the conditions without a stub around them (an empty body is
    /// every request).
    func decodeRequest(_ json: [UInt8], label: String) -> Result<RequestPattern, StubProblems>

    /// A stub's `response` object, computed in code (StubKit's closure responders), so it
    /// cannot forward. `pathParameters` are the path's `{name}`s, for templates.
    func decodeComputedResponse(
        _ json: [UInt8],
        label: String,
        bodyFolder: URL,
        pathParameters: Set<String>
    ) -> Result<StubResponse, StubProblems>
}
