import HTTP1
import StubEngine

/// Recordings grouped into stubs and stub files: one file per method and path, in order of first
/// capture; in it, one stub per set of conditions (query, and body where bodies tell entries
/// apart), each replaying its responses in capture order.
enum HARStubWriter {
    static func write(_ recordings: [HARRecording], into plan: inout ImportPlan) {
        let files = CaptureFile.group(
            recordings,
            method: \.method,
            path: \.path,
            conditionKey: \.conditionKey,
            body: { $0.requestBody?.text }
        )
        var names = FileNameAllocator()
        var bodyNames = FileNameAllocator()
        var saved: [[UInt8]: String] = [:]
        for file in files {
            let name = names.allocate(file.slug, extension: "json")
            let base = String(name.dropLast(".json".count))
            var stubs: [JSONNode] = []
            var bodyCount = 0
            for group in file.groups {
                let distinguishBodies = group.variants.count > 1
                for (n, variant) in group.variants.enumerated() {
                    let responses = variant.items.map { recording -> JSONNode in
                        response(recording) { bytes, ext in
                            // A body recorded twice (a repeated request) is one file.
                            if let known = saved[bytes] { return known }
                            bodyCount += 1
                            let path = "__files/" + bodyNames.allocate("\(base)-\(bodyCount)", extension: ext)
                            plan.files.append(StubFolderPlan.File(relativePath: path, bytes: bytes))
                            saved[bytes] = path
                            return path
                        }
                    }
                    let first = variant.items[0]
                    var title = "\(first.method) \(captureTarget(path: first.path, query: first.query))"
                    if distinguishBodies && variant.body != nil { title += " (request body \(n + 1))" }
                    stubs.append(stub(title, first, body: distinguishBodies ? variant.body : nil, responses))
                }
            }
            plan.addStubFile(name, stubs)
        }
    }

    private static func stub(
        _ name: String,
        _ recording: HARRecording,
        body: String?,
        _ responses: [JSONNode]
    ) -> JSONNode {
        var request: [(String, JSONNode)] = [
            ("method", .string(recording.method)), ("path", .string(ExchangeStubPlanner.encodePath(recording.path))),
        ]
        if !recording.query.isEmpty {
            request.append(("query", .object(recording.query.map { ($0.name, JSONNode.string($0.value)) })))
        }
        if let body {
            let isJSON = MediaTypes.isJSON(recording.requestBody?.mimeType ?? "")
            if isJSON, let value = try? JSONParser.parse(Array(body.utf8), rejectDuplicateKeys: true) {
                request.append(("body", .object([("jsonEquals", value)])))
            } else {
                request.append(("body", .object([("equals", .string(body))])))
            }
        }
        var members: [(String, JSONNode)] = [("name", .string(name)), ("request", .object(request))]
        members.append(responses.count == 1 ? ("response", responses[0]) : ("responses", .array(responses)))
        return .object(members)
    }

    /// `saveBody` stores a body file and returns its path (relative to the stub file).
    private static func response(_ recording: HARRecording, saveBody: ([UInt8], String) -> String) -> JSONNode {
        var members: [(String, JSONNode)] = [("status", .number(recording.status))]
        var headers: [(name: String, values: [String])] = []
        for header in recording.headers {
            if let i = headers.firstIndex(where: { asciiCaseInsensitiveEquals($0.name, header.name) }) {
                headers[i].values.append(header.value)
            } else {
                headers.append((header.name, [header.value]))
            }
        }
        if !headers.isEmpty {
            members.append(
                (
                    "headers",
                    .object(
                        headers.map { header in
                            (
                                header.name,
                                header.values.count == 1
                                    ? .string(header.values[0]) : .array(header.values.map(JSONNode.string))
                            )
                        }
                    )
                )
            )
        }
        switch RecordedBodies.placement(recording.body, contentType: recording.contentType) {
        case .none: break
        case .inline(let value): members.append(("body", value))
        case .file(let ext):
            members.append(("bodyFile", .string(saveBody(recording.body, ext))))
        }
        return .object(members)
    }
}
