import HTTP1
import JSON
import StubEngine

/// One of WireMock's `multipartPatterns`: conditions on the parts of a `multipart/*` body
/// (`form-data`, `mixed`, `related`). `ANY` (the default) holds when one part meets every
/// condition, `ALL` when every part does. A part's `headers` are matched as request headers are
/// (`Content-Disposition` `contains` `name="file"` picks a form field), its `bodyPatterns` as a
/// request body is. `name` and `fileName` are what WireMock's Java builders turned into such a
/// `Content-Disposition` pattern; as in WireMock, they do not match by themselves.
package struct WireMockMultipartPattern: Sendable {
    package var matchesAll = false
    package var headers: [(name: String, pattern: MultiValuePattern)] = []
    package var bodyPatterns: [ContentPattern] = []

    static let keys = ["matchingType", "headers", "bodyPatterns", "name", "fileName"]

    /// Whether the parts of a request meet the pattern. A request that is not multipart, or
    /// whose body does not read as such, meets none (WireMock asks for a multipart request).
    func holds(_ facts: RequestFacts) -> Bool {
        guard case .success(let parts)? = facts.parsedMultipartBody else { return false }
        return matchesAll ? parts.allSatisfy(holds) : parts.contains(where: holds)
    }

    func holds(for part: MultipartBody.Part) -> Bool {
        headers.allSatisfy { $0.pattern.matches(part.values($0.name)) }
            && bodyPatterns.allSatisfy { $0.matchesContent(part.body) }
    }

    var description: String {
        var conditions = headers.map { "header \($0.name) \($0.pattern.description)" }
        conditions += bodyPatterns.map { "body \($0.description)" }
        let which = matchesAll ? "every part" : "a part"
        return conditions.isEmpty ? "a multipart body" : "\(which) with " + conditions.joined(separator: ", ")
    }

    /// Reads `multipartPatterns`: an array of objects, each problem at its JSON path.
    static func read(_ c: inout WireMockContext, _ node: JSONNode, _ path: String) -> [WireMockMultipartPattern] {
        guard let elements = node.elements else {
            c.error(path, node, "expected an array of multipart patterns, found \(node.kindDescription)")
            return []
        }
        var patterns: [WireMockMultipartPattern] = []
        for (index, element) in elements.enumerated() {
            let elementPath = "\(path)[\(index)]"
            guard c.checkKeys(element, elementPath, supported: keys, unsupported: [:], what: "a multipart pattern")
            else { continue }
            var pattern = WireMockMultipartPattern()
            if let type = element["matchingType"] {
                switch type.string {
                case "ALL": pattern.matchesAll = true
                case "ANY": pattern.matchesAll = false
                default: c.error(elementPath + ".matchingType", type, "expected \"ALL\" or \"ANY\"")
                }
            }
            pattern.headers = WireMockReader.named(
                &c,
                element["headers"],
                elementPath + ".headers",
                what: "part headers"
            )
            if let body = element["bodyPatterns"] {
                if let list = body.elements {
                    pattern.bodyPatterns = list.enumerated().compactMap {
                        WireMockPatternReader.pattern(&c, $0.element, "\(elementPath).bodyPatterns[\($0.offset)]")
                    }
                } else {
                    c.error(
                        elementPath + ".bodyPatterns",
                        body,
                        "expected an array of matchers, found \(body.kindDescription)"
                    )
                }
            }
            patterns.append(pattern)
        }
        return patterns
    }
}
