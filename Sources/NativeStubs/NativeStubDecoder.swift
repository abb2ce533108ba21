#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import StubEngine

/// The engine's `StubDecoder` for native stub JSON given at run time: the same decoders a stub
/// file goes through, with the label (`request body`, `StubDefinition`) as the file.
package struct NativeStubDecoder: StubDecoder {
    package init() {}

    package func decodeStubs(
        _ json: [UInt8],
        label: String,
        bodyFolder: URL,
        source: @escaping (Int) -> StubSource
    ) -> Result<[Stub], StubProblems> {
        var context = DecodingContext(
            displayPath: label,
            fileURL: bodyFolder.appendingPathComponent("runtime.json"),
            bodyFiles: BodyFileReader(root: bodyFolder),
            makeSource: source
        )
        // A body that is an array is decoded as it is read, so one of ten million `{}` stops
        // after the first errors instead of being parsed whole first.
        context.errorLimit = StubProblem.decodingErrorLimit
        var stubs: [Stub] = []
        do {
            let streamed = try JSONParser.forEachElement(json, rejectDuplicateKeys: true) { node, index in
                if context.stopsAtErrorLimit(before: index, of: nil, what: "stub") { return false }
                let stub = StubFileDecoder.decodeStub(&context, node, "$[\(index)]", index: index, order: index)
                if let stub { stubs.append(stub) }
                return true
            }
            if streamed == nil {
                let root = try JSONParser.parse(json, rejectDuplicateKeys: true)
                stubs = StubFileDecoder.decodeFile(&context, root, firstOrder: 0)
            }
        } catch {
            let syntax = StubProblem(.error, file: label, position: error.position, message: error.message)
            return .failure(StubProblems(problems: context.problems.filter { $0.severity == .error } + [syntax]))
        }
        if context.hasErrors { return .failure(StubProblems(problems: context.problems)) }
        return .success(stubs)
    }

    package func decodeRequest(_ json: [UInt8], label: String) -> Result<RequestPattern, StubProblems> {
        let node: JSONNode
        do {
            node = json.isEmpty ? .object([]) : try JSONParser.parse(json, rejectDuplicateKeys: true)
        } catch {
            return .failure(
                StubProblems(problems: [
                    StubProblem(.error, file: label, position: error.position, message: error.message)
                ])
            )
        }
        // A request pattern names no body file: the folder is never read.
        let root = URL(fileURLWithPath: "/")
        var context = DecodingContext(displayPath: label, fileURL: root, bodyFiles: BodyFileReader(root: root))
        let pattern = RequestDecoder.decodeRequest(&context, node, "$")
        guard let pattern, !context.hasErrors else { return .failure(StubProblems(problems: context.problems)) }
        return .success(pattern)
    }

    package func decodeComputedResponse(
        _ json: [UInt8],
        label: String,
        bodyFolder: URL,
        pathParameters: Set<String>
    ) -> Result<StubResponse, StubProblems> {
        let node: JSONNode
        do {
            node = try JSONParser.parse(json, rejectDuplicateKeys: true)
        } catch {
            return .failure(
                StubProblems(problems: [
                    StubProblem(.error, file: label, position: error.position, message: error.message)
                ])
            )
        }
        var context = DecodingContext(
            displayPath: label,
            fileURL: bodyFolder.appendingPathComponent("runtime.json"),
            bodyFiles: BodyFileReader(root: bodyFolder)
        )
        let response = ResponseDecoder.decodeResponse(&context, node, "$", pathParameters: pathParameters)
        if response?.proxy != nil {
            context.error(
                "$.proxy",
                node["proxy"],
                "a response computed in code cannot proxy; give the stub a \"proxy\" response instead"
            )
        }
        guard let response, !context.hasErrors else { return .failure(StubProblems(problems: context.problems)) }
        return .success(response)
    }
}
