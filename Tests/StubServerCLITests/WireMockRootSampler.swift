import Foundation

/// Reads a WireMock root's mappings on its own (Foundation's JSON reader, not the server's) and
/// picks requests whose answer the mapping alone decides: a GET (or ANY) to a literal `url` or
/// `urlPath`, no other condition, no scenario state, and no other mapping of the root that could
/// match the same request at the same or a better priority. The expected answer is what the
/// mapping says: its status, and its body where it is static.
struct WireMockRootSampler {
    struct Sample {
        let file: String
        /// The mapping's JSON path in its file: `$`, or `$.mappings[N]` in a file of several.
        let mapping: String
        let target: String
        let status: Int
        /// The body bytes when they are static (no template, no file missing); nil: status only.
        let body: [UInt8]?
        /// The body is JSON: compare parsed, not byte for byte (the server writes it compactly).
        let json: Bool
    }

    /// One mapping as far as choosing samples needs it.
    private struct Mapping {
        let file: String
        let path: String
        let node: [String: Any]
        var request: [String: Any] { node["request"] as? [String: Any] ?? [:] }
        var response: [String: Any] { node["response"] as? [String: Any] ?? [:] }
        var priority: Int { Self.integer(node["priority"]) ?? 5 }

        func isSame(as other: Mapping) -> Bool {
            file == other.file && (node as NSDictionary) == (other.node as NSDictionary)
        }

        static func integer(_ value: Any?) -> Int? {
            if let n = value as? NSNumber { return n.intValue }
            return (value as? String).flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
    }

    let root: URL
    private var mappings: [Mapping] = []
    /// Mapping files Foundation cannot read as JSON (the server must skip them too).
    private(set) var unreadable: [String] = []

    init(root: URL) {
        self.root = root
        let folder = root.appendingPathComponent("mappings")
        let files = (FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? [])
            .filter { $0.lowercased().hasSuffix(".json") && !$0.split(separator: "/").contains { $0.hasPrefix(".") } }
            .sorted()
        for file in files {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(file).path),
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else {
                unreadable.append(file)
                continue
            }
            if let list = json["mappings"] as? [[String: Any]] {
                mappings += list.enumerated().map {
                    Mapping(file: "mappings/" + file, path: "$.mappings[\($0.offset)]", node: $0.element)
                }
            } else {
                mappings.append(Mapping(file: "mappings/" + file, path: "$", node: json))
            }
        }
    }

    var mappingCount: Int { mappings.count }

    /// Up to `limit` samples, in path order, leaving out mappings in `skippedFiles`.
    func samples(limit: Int, skippedFiles: Set<String>) -> [Sample] {
        var result: [Sample] = []
        for mapping in mappings where result.count < limit && !skippedFiles.contains(mapping.file) {
            if let sample = sample(mapping) { result.append(sample) }
        }
        return result
    }

    private func sample(_ m: Mapping) -> Sample? {
        let request = m.request
        let method = request["method"] as? String ?? "ANY"
        guard method == "GET" || method == "ANY", Set(request.keys).isSubset(of: ["method", "url", "urlPath"]),
            m.node["requiredScenarioState"] == nil, m.node["scenarioName"] == nil
        else { return nil }
        guard let target = (request["url"] ?? request["urlPath"]) as? String, target.hasPrefix("/"),
            !target.contains(" "), !target.contains("#"),
            request["urlPath"] == nil || !target.contains("?")
        else { return nil }
        let response = m.response
        let plain: Set<String> = [
            "status", "statusMessage", "headers", "body", "jsonBody", "base64Body",
            "bodyFileName", "transformers",
        ]
        guard Set(response.keys).isSubset(of: plain) else { return nil }
        let status = Mapping.integer(response["status"]) ?? 200
        guard !competitors(of: m, target: target) else { return nil }
        let templated = (response["transformers"] as? [String])?.contains("response-template") == true
        let (body, json) = expectedBody(response, templated: templated)
        switch body {
        case .missing: return Sample(file: m.file, mapping: m.path, target: target, status: 500, body: nil, json: false)
        case .bytes(let bytes):
            return Sample(file: m.file, mapping: m.path, target: target, status: status, body: bytes, json: json)
        case .dynamic:
            return Sample(file: m.file, mapping: m.path, target: target, status: status, body: nil, json: false)
        }
    }

    private enum Body {
        case bytes([UInt8])
        case dynamic, missing
    }

    private func expectedBody(_ response: [String: Any], templated: Bool) -> (Body, Bool) {
        func checked(_ bytes: [UInt8]) -> Body {
            templated && String(decoding: bytes, as: UTF8.self).contains("{{") ? .dynamic : .bytes(bytes)
        }
        if let text = response["body"] as? String { return (checked(Array(text.utf8)), false) }
        if let json = response["jsonBody"] {
            guard let data = try? JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed]) else {
                return (.dynamic, false)
            }
            return (checked(Array(data)), true)
        }
        if let base64 = response["base64Body"] as? String {
            let bytes = Data(base64Encoded: base64, options: .ignoreUnknownCharacters).map { Array($0) }
            return (bytes.map { .bytes($0) } ?? .dynamic, false)
        }
        if let name = response["bodyFileName"] as? String {
            if name.contains("{{") { return (.dynamic, false) }
            let path = root.appendingPathComponent("__files").appendingPathComponent(name).path
            guard let data = FileManager.default.contents(atPath: path) else { return (.missing, false) }
            return (checked(Array(data)), false)
        }
        return (.bytes([]), false)
    }

    /// Whether another mapping could answer the same GET at the same or a better priority
    /// (judged on its URL and method alone: its other conditions might hold).
    private func competitors(of sample: Mapping, target: String) -> Bool {
        let path = String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        for other in mappings where other.priority <= sample.priority && !other.isSame(as: sample) {
            let request = other.request
            let method = request["method"] as? String ?? "ANY"
            if method != "GET" && method != "ANY" && request["method"] is String { continue }
            if Self.couldMatch(request, target: target, path: path) { return true }
        }
        return false
    }

    private static func couldMatch(_ request: [String: Any], target: String, path: String) -> Bool {
        if let url = request["url"] as? String { return url == target }
        if let urlPath = request["urlPath"] as? String { return urlPath == path }
        if let pattern = request["urlPattern"] as? String { return matchesWhole(pattern, target) }
        if let pattern = request["urlPathPattern"] as? String { return matchesWhole(pattern, path) }
        if let template = request["urlPathTemplate"] as? String {
            let regex =
                "^"
                + NSRegularExpression.escapedPattern(for: template)
                .replacingOccurrences(of: #"\\\{[^/]*?\\\}"#, with: "[^/]+", options: .regularExpression) + "$"
            return matchesWhole(regex, path)
        }
        return true  // no URL condition: any URL
    }

    /// Java's `matches()`: the whole value. A pattern ICU cannot compile counts as a match
    /// (the sample is then left out, which is the safe side).
    private static func matchesWhole(_ pattern: String, _ value: String) -> Bool {
        guard let regex = try? NSRegularExpression(pattern: "^(?:" + pattern + ")$") else { return true }
        return regex.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
    }
}
