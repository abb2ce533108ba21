import HTTP1
import JSON
import JSONSchema
import StubAuthoring
import StubEngine

/// Options of `stubserver import postman`.
package struct PostmanImportOptions: Sendable {
    /// An environment's variables (`--environment FILE`), over the collection's.
    package var environment: [(name: String, value: String)] = []
    /// A stub answering 501 for each request without a saved response.
    package var placeholders = false
    /// Keep cookies, credentials and tokens (`RecordedFields.isSecret`) in the stubs.
    package var keepSecrets = false

    package init(
        environment: [(name: String, value: String)] = [],
        placeholders: Bool = false,
        keepSecrets: Bool = false
    ) {
        self.environment = environment
        self.placeholders = placeholders
        self.keepSecrets = keepSecrets
    }
}

/// One saved example ready to become (part of) a stub: the request it was saved for, variables
/// resolved, and the response as Postman saved it (the body decoded, so the headers that
/// described the original transfer are left out).
struct PostmanExample {
    /// Index of its request in `PostmanCollection.items`.
    let item: Int
    let name: String
    let node: JSONNode
    let request: PostmanRequest
    let status: Int
    let headers: [(name: String, value: String)]
    let body: [UInt8]
    let contentType: String
}

/// `stubserver import postman`: a collection's saved examples as stubs. Each example answers
/// the request it was saved for: method and path (`:id` and unresolved `{{id}}` segments are
/// parameters), and the query parameters and body where they tell a route's examples apart.
/// Examples that ask the same are one stub answering them in turn, and each one by name with
/// `Prefer: example=NAME`. One stub file per request, in sub-folders as the collection's folders.
package enum PostmanImporter {
    package struct Outcome {
        package var plan = ImportPlan()
        package var collectionName = ""
        package var version = ""
        package var requestCount = 0
        package var exampleCount = 0
        package var importedExamples = 0
        /// Requests with no saved example, by their path in the collection.
        package var withoutExamples: [String] = []
        package var placeholderStubs = 0
        /// Stubs that answer several examples in turn (they asked the same).
        package var sequences = 0
        /// Examples skipped, and malformed items, by reason.
        package var skipped: [(reason: String, count: Int)] = []
        package var skippedExamples = 0
        package var unresolved: [String: Int] = [:]
        package var droppedSecrets: [String: Int] = [:]
        /// The examples imported, and for each the one whose response a request made to fit it
        /// gets, and whether that request must say `Prefer: example=NAME` (for tests).
        var examples: [PostmanExample] = []
        var answeredBy: [Int] = []
        var needsPrefer: [Bool] = []
    }

    package static func plan(
        _ bytes: [UInt8],
        name: String,
        options: PostmanImportOptions = .init()
    ) -> Result<Outcome, ImportProblem> {
        let root: JSONNode
        switch ImportProblem.parsedJSON(bytes, file: name, notA: "not a Postman collection (a collection is JSON)") {
        case .success(let node): root = node
        case .failure(let problem): return .failure(problem)
        }
        return PostmanCollection.read(root, file: name).map { collection in
            var outcome = Outcome()
            outcome.collectionName = collection.name
            outcome.version = collection.version
            outcome.requestCount = collection.items.count + collection.malformed.count
            var variables = PostmanVariables(collection: collection.variables, environment: options.environment)
            for bad in collection.malformed {
                skip(
                    "malformed item \"\(bad.path)\" skipped: \(bad.reason)",
                    bad.node,
                    name,
                    &outcome,
                    reason: "malformed item"
                )
            }
            var examples: [PostmanExample] = []
            var requests: [PostmanRequest?] = []
            for (index, item) in collection.items.enumerated() {
                let request: PostmanRequest
                switch PostmanRequest.read(item.request, variables: &variables) {
                case .success(let read): request = read
                case .failure(let why):
                    outcome.exampleCount += item.examples.count
                    outcome.skippedExamples += item.examples.count
                    skip(
                        "request \"\(item.displayPath)\" skipped: \(why.message)",
                        item.node,
                        name,
                        &outcome,
                        reason: "malformed request",
                        count: max(1, item.examples.count)
                    )
                    requests.append(nil)
                    continue
                }
                requests.append(request)
                outcome.exampleCount += item.examples.count
                if item.examples.isEmpty {
                    outcome.withoutExamples.append(item.displayPath)
                    let what =
                        options.placeholders
                        ? "a stub answers 501 naming it" : "no stub (--placeholders writes one answering 501)"
                    outcome.plan.problems.append(
                        ImportProblem(
                            .note,
                            file: name,
                            position: item.node.position,
                            message:
                                """
                                request \"\(item.displayPath)\" (\(request.method) \(request.path.source)) has \
                                no saved response: \(what)
                                """
                        )
                    )
                }
                for (n, node) in item.examples.enumerated() {
                    let label = "example \"\(node["name"]?.string ?? "#\(n + 1)")\" of \"\(item.displayPath)\""
                    switch example(
                        node,
                        index: n,
                        item: index,
                        fallback: request,
                        options: options,
                        variables: &variables,
                        outcome: &outcome
                    ) {
                    case .success(let example): examples.append(example)
                    case .failure(let why):
                        outcome.skippedExamples += 1
                        skip("\(label) skipped: \(why.message)", node, name, &outcome, reason: why.message)
                    }
                }
            }
            outcome.importedExamples = examples.count
            outcome.unresolved = variables.unresolved
            var writer = PostmanStubWriter(items: collection.items, keepSecrets: options.keepSecrets)
            writer.write(examples, into: &outcome.plan)
            if options.placeholders {
                for (index, item) in collection.items.enumerated() where item.examples.isEmpty {
                    guard let request = requests[index] else { continue }
                    writer.writePlaceholder(index, request)
                    outcome.placeholderStubs += 1
                }
            }
            writer.finish(into: &outcome.plan, file: name)
            outcome.sequences = writer.sequences
            outcome.examples = examples
            outcome.answeredBy = writer.answeredBy
            outcome.needsPrefer = writer.needsPrefer
            outcome.droppedSecrets.merge(writer.droppedSecrets) { $0 + $1 }
            return outcome
        }
    }

    /// Reads one saved example; the request it was saved for is its `originalRequest`, else
    /// the item's own.
    static func example(
        _ node: JSONNode,
        index: Int,
        item: Int,
        fallback: PostmanRequest,
        options: PostmanImportOptions,
        variables: inout PostmanVariables,
        outcome: inout Outcome
    ) -> Result<PostmanExample, ImportFailure> {
        guard node.members != nil else { return .failure(ImportFailure("not an object")) }
        var request = fallback
        if let original = node["originalRequest"], original.members != nil || original.string != nil {
            switch PostmanRequest.read(original, variables: &variables) {
            case .success(let read): request = read
            case .failure(let why): return .failure(ImportFailure("its originalRequest: \(why.message)"))
            }
        }
        guard let status = node["code"]?.wholeNumber else {
            return .failure(ImportFailure("no status code (\"code\")"))
        }
        switch status {
        case 100...199: return .failure(ImportFailure("informational status (a stub answers with a final status)"))
        case 200...599: break
        default: return .failure(ImportFailure("status \(status) is not an HTTP status"))
        }
        var headers: [(name: String, value: String)] = []
        for (name, value) in headerList(node["header"]) {
            // Postman saves the body decoded: a `Content-Encoding: gzip` kept beside it would
            // be a lie. The rest is the recorder's rule (`RecordedFields`).
            if asciiCaseInsensitiveEquals(name, "Content-Encoding") { continue }
            switch RecordedFields.verdict(name, value, keepSecrets: options.keepSecrets) {
            case .keep: headers.append((name, value))
            case .secret: outcome.droppedSecrets[name.lowercased(), default: 0] += 1
            case .volatile, .invalid: break
            }
        }
        if !options.keepSecrets, let cookies = node["cookie"]?.elements, !cookies.isEmpty {
            outcome.droppedSecrets["cookie (saved cookies)", default: 0] += cookies.count
        }
        var contentType = headers.first { asciiCaseInsensitiveEquals($0.name, "Content-Type") }?.value
        if contentType == nil, let type = previewType(node["_postman_previewlanguage"]?.string) {
            contentType = type
            headers.insert(("Content-Type", type), at: 0)
        }
        // No body reaches the client in these, whatever was saved.
        let bodiless = request.method == "HEAD" || status == 204 || status == 304
        let body = bodiless ? [] : Array((node["body"]?.string ?? "").utf8)
        if body.count > StubLoader.maximumBodyFileBytes {
            return .failure(
                ImportFailure(
                    "response body over the \(StubLoader.maximumBodyFileBytes >> 20) MiB a body file may hold"
                )
            )
        }
        let name = node["name"]?.string ?? ""
        return .success(
            PostmanExample(
                item: item,
                name: name.isEmpty ? "example \(index + 1)" : name,
                node: node,
                request: request,
                status: status,
                headers: headers,
                body: body,
                contentType: contentType ?? ""
            )
        )
    }

    /// `[{"key": ..., "value": ...}]` without the disabled ones, or (v2.0) `Name: value` lines.
    static func headerList(_ node: JSONNode?) -> [(String, String)] {
        if let text = node?.string {
            return text.split(whereSeparator: \.isNewline).compactMap { line -> (String, String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                let value = line[colon...].dropFirst()
                return (String(line[..<colon]).trimmingSpaces(), String(value).trimmingSpaces())
            }
        }
        return (node?.elements ?? []).compactMap { header in
            guard header["disabled"]?.bool != true, let key = header["key"]?.string,
                let value = header["value"].flatMap(PostmanCollection.scalarText)
            else { return nil }
            return (key, value)
        }
    }

    /// The media type of Postman's preview language, for a saved body without `Content-Type`.
    static func previewType(_ language: String?) -> String? {
        switch language?.lowercased() {
        case "json": "application/json"
        case "xml": "application/xml"
        case "html": "text/html; charset=utf-8"
        case "text": "text/plain; charset=utf-8"
        case "javascript": "application/javascript"
        default: nil
        }
    }

    static func skip(
        _ message: String,
        _ node: JSONNode,
        _ file: String,
        _ outcome: inout Outcome,
        reason: String,
        count: Int = 1
    ) {
        if let index = outcome.skipped.firstIndex(where: { $0.reason == reason }) {
            outcome.skipped[index].count += count
        } else {
            outcome.skipped.append((reason, count))
        }
        outcome.plan.problems.append(ImportProblem(.note, file: file, position: node.position, message: message))
    }

    /// An environment file (`{"name": ..., "values": [...]}`, as Postman exports one, or the
    /// Postman API's `{"environment": {...}}`): its enabled variables.
    package static func environment(
        _ bytes: [UInt8],
        name: String
    ) -> Result<[(name: String, value: String)], ImportProblem> {
        let root: JSONNode
        switch ImportProblem.parsedJSON(bytes, file: name, notA: "not a Postman environment (an environment is JSON)") {
        case .success(let node): root = node
        case .failure(let problem): return .failure(problem)
        }
        let environment = root["values"] == nil ? root["environment"] ?? root : root
        guard let values = environment["values"], values.elements != nil else {
            let found =
                root["info"] != nil && root["item"] != nil
                ? "this is a collection, not an environment" : "found \(root.kindDescription) without \"values\""
            return .failure(
                ImportProblem(
                    .error,
                    file: name,
                    position: root.position,
                    message:
                        """
                        not a Postman environment: \(found); an environment is {\"name\": ..., \"values\": \
                        [{\"key\": ..., \"value\": ...}]}
                        """
                )
            )
        }
        return .success(PostmanCollection.variableList(values))
    }
}

extension PostmanImporter.Outcome {
    /// `12 stubs from 14 examples of 9 requests in 9 files; 3 requests without a saved response
    /// (...); unresolved variables: host 12× (...)`.
    package var summary: String {
        var text =
            """
            \(SchemaWording.plural(plan.stubCount, "stub")) from \
            \(SchemaWording.plural(importedExamples, "saved example"))
            """
        let files = SchemaWording.plural(plan.stubFiles.count, "file")
        text += " of \(SchemaWording.plural(requestCount, "request")) in \(files)"
        let bodies = plan.bodyFiles.count
        if bodies > 0 { text += " (and \(SchemaWording.plural(bodies, "body file")) in __files/)" }
        if sequences > 0 {
            text +=
                "; \(SchemaWording.plural(sequences, "stub")) \(sequences == 1 ? "answers" : "answer") several examples"
                + " of the same request in turn (Prefer: example=NAME picks one)"
        }
        if !withoutExamples.isEmpty {
            let written =
                placeholderStubs > 0
                ? "each answers 501 naming it" : "no stubs; --placeholders writes one answering 501 for each"
            text += "; \(SchemaWording.plural(withoutExamples.count, "request")) without a saved response (\(written))"
        }
        let skippedCount = skipped.reduce(0) { $0 + $1.count }
        if skippedCount > 0 {
            text +=
                "; \(skippedCount) skipped (" + skipped.map { "\($0.count): \($0.reason)" }.joined(separator: "; ")
                + ")"
        }
        // Postman's dynamic variables ($guid, $timestamp) are a new value on every request.
        let dynamic = unresolved.filter { $0.key.hasPrefix("$") }
        let missing = unresolved.filter { !$0.key.hasPrefix("$") }
        if !missing.isEmpty {
            let list = Self.counted(missing, limit: 12)
            text += "; variables without a value: \(list) (--environment FILE gives them)"
        }
        if !dynamic.isEmpty {
            text += "; dynamic variables, matched as present: \(Self.counted(dynamic, limit: 12))"
        }
        if !droppedSecrets.isEmpty {
            text += "; secrets left out: \(Self.counted(droppedSecrets, limit: 20)) (--keep-secrets keeps them)"
        }
        return text
    }

    /// `host 12×, token 3×`, by name, at most `limit` of them.
    static func counted(_ counts: [String: Int], limit: Int) -> String {
        let sorted = counts.sorted { $0.key < $1.key }
        let list = sorted.prefix(limit).map { "\($0.key) \($0.value)×" }.joined(separator: ", ")
        return sorted.count > limit ? list + ", ..." : list
    }
}
