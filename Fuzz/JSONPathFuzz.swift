// libFuzzer target for JSONPath (Jayway's dialect, which WireMock's matchesJsonPath and the
// jsonPath template helper use). Not part of the package (SwiftPM ignores this folder):
// scripts/fuzz compiles this file together with Sources/JSONPath, Sources/JSON and
// Sources/RegularExpressions as one module, so internal API is reachable without @testable.
//
// Input: the expression (UTF-8; invalid bytes become U+FFFD), then a 0xFF byte (never in UTF-8),
// then a JSON document. No separator, or a document that does not parse: the fixed documents
// below are used instead. Every document is also walked along a route the input's bytes choose.
//
// Invariants (a violation is a precondition failure, which libFuzzer saves as a crash):
//  1. compiling never traps; a refusal has a message and an offset within the expression;
//  2. evaluating a compiled path never traps, on the input's document and the fixed ones, with
//     the default budget and with a tiny one;
//  3. a definite path gives a value or "missing", an indefinite one a list; evaluating twice
//     gives the same answer;
//  4. without a function or a final union of names (which Jayway merges into a new object),
//     every node a path selects is a node of the document;
//  5. a route to a node, written in bracket notation (names quoted and escaped, indices) and in
//     dot notation where the names allow it, compiles, is definite, and selects exactly that node.
import Foundation

// Parsed per input, not held in a global: LeakSanitizer reports a global JSON tree as leaked at
// exit (it does not find the references that hold its boxes).
private let fixedDocumentTexts = [
    #"""
    {"store": {"book": [{"category": "fiction", "price": 8.95, "isbn": "0-553"},
                        {"category": "reference", "price": 22.5, "tags": ["a", "b"]}],
               "bicycle": {"color": "red", "price": 19.95}}, "limit": 10}
    """#,
    #"[1, "2", -3.5e2, null, true, [[]], {"": {"a b": "c"}}, {"'\\\"": 0}]"#,
    #"{"a": {"a": {"a": {"a": [0, {"a": 1}]}}}, "n": "10", "m": 10, "e": [], "o": {}}"#,
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let separator = input.firstIndex(of: 0xFF)
    let expression = String(decoding: input[..<(separator ?? input.endIndex)], as: UTF8.self)
    var documents = fixedDocumentTexts.map { try! JSONParser.parse(Array($0.utf8)) }
    if let separator, let document = try? JSONParser.parse(Array(input[(separator + 1)...]), limits: .requestBody) {
        documents.insert(document, at: 0)
    }
    checkExpression(expression, documents)
    for document in documents { checkRoute(document, steering: input) }
    return 0
}

// MARK: - 1 to 4: any expression

private func checkExpression(_ source: String, _ documents: [JSONNode]) {
    let path: JSONPath
    do {
        path = try JSONPath(source)
    } catch {
        precondition(!error.message.isEmpty, "a refusal without a message")
        precondition(
            error.offset >= 0 && error.offset <= source.unicodeScalars.count,
            "offset \(error.offset) outside \(source.unicodeScalars.count) scalars: \(error)"
        )
        return
    }
    for document in documents {
        let result = path.evaluate(document)
        switch result {
        case .value, .missing: precondition(path.isDefinite, "an indefinite path gave one value: \(source)")
        case .list: precondition(!path.isDefinite, "a definite path gave a list: \(source)")
        }
        precondition(describe(result) == describe(path.evaluate(document)), "two evaluations differ: \(source)")
        _ = path.evaluate(document, budget: 3)
        // Functions and a final union of names (merged into one object) make new values.
        let selectsNodes =
            !path.hasFunction && !path.segments.contains { if case .mergedNames = $0 { true } else { false } }
        if selectsNodes, case .list(let nodes) = result, nodes.count <= 256 {
            let all = Set(descendants(document).map { JSONSerializer.string($0) })
            for node in nodes {
                precondition(
                    all.contains(JSONSerializer.string(node)),
                    "\(source) selected a node that is not in the document: \(JSONSerializer.string(node))"
                )
            }
        }
        if selectsNodes, case .value(let node) = result {
            precondition(
                descendants(document).contains { JSONSerializer.string($0) == JSONSerializer.string(node) },
                "\(source) selected a value that is not in the document"
            )
        }
    }
}

private func describe(_ result: JSONPath.Result) -> String {
    switch result {
    case .value(let node): return "value " + JSONSerializer.string(node)
    case .missing: return "missing"
    case .list(let nodes): return "list " + nodes.map { JSONSerializer.string($0) }.joined(separator: ",")
    }
}

/// The document and every node below it (bounded: a huge document is checked in part).
private func descendants(_ root: JSONNode) -> [JSONNode] {
    var out: [JSONNode] = []
    var stack = [root]
    while let node = stack.popLast(), out.count < 20_000 {
        out.append(node)
        switch node.value {
        case .array(let elements): stack += elements
        case .object(let members): stack += members.map(\.value)
        default: break
        }
    }
    return out
}

// MARK: - 5: a route written as a path selects its node

private enum Step {
    case name(String)
    case index(Int)
}

private func checkRoute(_ document: JSONNode, steering: [UInt8]) {
    var node = document
    var steps: [Step] = []
    for byte in steering.prefix(16) {
        switch node.value {
        case .array(let elements) where !elements.isEmpty:
            let i = Int(byte) % elements.count
            // Negative indices count from the end, as in Jayway.
            steps.append(.index(byte & 0x80 != 0 ? i - elements.count : i))
            node = elements[i]
        case .object(let members) where !members.isEmpty:
            let member = members[Int(byte) % members.count]
            // A repeated key: JSONPath reads the last one, as the parser keeps it.
            guard members.last(where: { $0.key == member.key })?.value.position == member.value.position else { return }
            steps.append(.name(member.key))
            node = member.value
        default:
            break
        }
    }
    let bracket =
        "$"
        + steps.map { step -> String in
            switch step {
            case .index(let i): return "[\(i)]"
            case .name(let name):
                // Scalar by scalar: a quote followed by a combining mark is one Character, which
                // replacingOccurrences(of: "'") would not escape, while the parser reads scalars.
                var escaped = String.UnicodeScalarView()
                for scalar in name.unicodeScalars {
                    if scalar == "\\" || scalar == "'" { escaped.append("\\") }
                    escaped.append(scalar)
                }
                return "['" + String(escaped) + "']"
            }
        }.joined()
    expect(bracket, selects: node, in: document)
    let plain = steps.allSatisfy { step in
        guard case .name(let name) = step else { return true }
        return !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") && $0.isASCII
            }
            && JSONPathFunction.Name(rawValue: name) == nil
    }
    if plain {
        let dotted =
            "$"
            + steps.map { step -> String in
                switch step {
                case .index(let i): return "[\(i)]"
                case .name(let name): return "." + name
                }
            }.joined()
        expect(dotted, selects: node, in: document)
    }
}

private func expect(_ source: String, selects node: JSONNode, in document: JSONNode) {
    let path: JSONPath
    do {
        path = try JSONPath(source)
    } catch {
        preconditionFailure("the route \(source) does not compile: \(error)")
    }
    precondition(path.isDefinite, "the route \(source) is not definite")
    guard case .value(let found) = path.evaluate(document) else {
        preconditionFailure("the route \(source) found nothing")
    }
    precondition(
        JSONSerializer.string(found) == JSONSerializer.string(node) && found.position == node.position,
        "the route \(source) found \(JSONSerializer.string(found)), not \(JSONSerializer.string(node))"
    )
}
