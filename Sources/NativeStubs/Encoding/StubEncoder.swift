import JSON
import StubEngine

/// Writes stubs as stub files: the one writer that recording and the importers go through, so
/// every file they produce reads the same way and the loader accepts it.
///
/// Output is deterministic: keys of the stub format in the contract's order (comments first, as
/// written), user data (header and query maps, JSON bodies) in the order given, pretty-printed
/// by `JSONPrettyPrinter`. A file with one stub holds the stub object; with several, an array.
/// `bodyFile` paths are written as given: they are relative to the file's folder.
package enum StubEncoder {
    /// One compiled stub, from the definition it was decoded from.
    package static func encode(_ stub: Stub) -> [UInt8] {
        encode([stub])
    }

    package static func encode(_ stubs: [Stub]) -> [UInt8] {
        encode(stubNodes: stubs.map { $0.definition ?? .object([]) })
    }

    /// Stub objects (as JSON) written as one file.
    package static func encode(stubNodes: [JSONNode]) -> [UInt8] {
        let canonical = stubNodes.map(canonicalStub)
        return JSONPrettyPrinter.bytes(canonical.count == 1 ? canonical[0] : .array(canonical))
    }

    /// A stub object with its keys (and its parts' keys) in the contract's order.
    package static func canonicalStub(_ node: JSONNode) -> JSONNode {
        reordered(node, StubFormat.stubKeys) { key, value in
            switch key {
            case "request": return canonicalRequest(value)
            case "response": return canonicalResponse(value)
            case "responses": return value.elements.map { .array($0.map(canonicalResponse)) } ?? value
            case "scenario": return reordered(value, StubFormat.scenarioKeys)
            default: return value
            }
        }
    }

    static func canonicalRequest(_ node: JSONNode) -> JSONNode {
        reordered(node, StubFormat.requestKeys) { key, value in
            switch key {
            case "host": return canonicalMatcher(value)
            case "query", "headers": return mapValues(value, canonicalMatcher)
            case "body":
                return reordered(value, StubFormat.bodyMatcherKeys) { key, operand in
                    switch key {
                    case "form": mapValues(operand, canonicalMatcher)
                    case "multipart": canonicalMultipart(operand)
                    default: operand
                    }
                }
            default: return value
            }
        }
    }

    static func canonicalMultipart(_ node: JSONNode) -> JSONNode {
        reordered(node, StubFormat.multipartKeys) { key, value in
            switch key {
            case "fields": mapValues(value, canonicalMatcher)
            case "files":
                mapValues(value) { file in
                    reordered(file, StubFormat.multipartFileKeys) { key, matcher in
                        key == "absent" ? matcher : canonicalMatcher(matcher)
                    }
                }
            default: value
            }
        }
    }

    static func canonicalResponse(_ node: JSONNode) -> JSONNode {
        reordered(node, StubFormat.responseKeys) { key, value in
            switch key {
            case "delay": return reordered(value, StubFormat.delayRangeKeys)
            case "dribble": return reordered(value, StubFormat.dribbleKeys)
            case "proxy": return reordered(value, StubFormat.proxyKeys)
            default: return value
            }
        }
    }

    static func canonicalMatcher(_ node: JSONNode) -> JSONNode {
        node.members == nil ? node : reordered(node, StubFormat.matcherKeys)
    }

    private static func mapValues(_ node: JSONNode, _ transform: (JSONNode) -> JSONNode) -> JSONNode {
        guard let members = node.members else { return node }
        return JSONNode(
            .object(
                members.map { JSONNode.Member(key: $0.key, keyPosition: $0.keyPosition, value: transform($0.value)) }
            )
        )
    }

    /// Comment keys (`$schema`, `_...`) first as written, then `order`, then anything else as
    /// written (the loader reports unknown keys; the encoder does not drop them).
    private static func reordered(
        _ node: JSONNode,
        _ order: [String],
        _ transform: (String, JSONNode) -> JSONNode = { $1 }
    ) -> JSONNode {
        guard let members = node.members else { return node }
        var result = members.filter { DecodingContext.isComment($0.key) }
        for key in order {
            if let member = members.last(where: { $0.key == key }) {
                result.append(
                    JSONNode.Member(key: key, keyPosition: member.keyPosition, value: transform(key, member.value))
                )
            }
        }
        result += members.filter { !DecodingContext.isComment($0.key) && !order.contains($0.key) }
        return JSONNode(.object(result))
    }
}
