import JSON
import StubEngine

/// Stubs that can never answer: another stub earlier in file order has the same conditions, the
/// same priority and the same scenario state, so it wins every request both match (see "Which
/// stub answers" in docs/stub-format.md). A hand-written stub and a recording of the same
/// request, say: the one that answers is decided by file names alone. The loader warns about
/// the later one, so `validate` (and serving) says so with both places.
enum ShadowedStubs {
    /// One warning per native file stub that an earlier one shadows.
    static func warnings(_ stubs: [Stub]) -> [StubProblem] {
        var firstByKey: [String: Stub] = [:]
        var problems: [StubProblem] = []
        for stub in stubs.sorted(by: { $0.order < $1.order }) where stub.dialect == .native {
            guard case .file(let path, _) = stub.source, let definition = stub.definition else { continue }
            let key = Self.key(definition, priority: stub.priority)
            guard let earlier = firstByKey[key] else {
                firstByKey[key] = stub
                continue
            }
            let place: String
            if case .file(let earlierPath, _) = earlier.source, let node = earlier.definition, node.position.line > 0 {
                place = "\(earlierPath):\(node.position.line):\(node.position.column)"
            } else {
                place = earlier.source.description
            }
            problems.append(
                StubProblem(
                    .warning,
                    file: path,
                    position: definition.position,
                    message: "\"\(stub.name)\" never answers: \"\(earlier.name)\" (\(place)) has the same request "
                        + "conditions, priority and scenario state and comes first in file order, so it answers "
                        + "every request both match; change a condition or the priority, or remove one of them"
                )
            )
        }
        return problems
    }

    /// What decides which requests a stub answers and how it ranks, written one way: keys
    /// sorted, header names in lower case, comments (`_...`, `$schema`) left out.
    private static func key(_ definition: JSONNode, priority: Int) -> String {
        var request: [(String, JSONNode)] = []
        for member in definition["request"]?.members ?? [] where !isComment(member.key) {
            guard member.key == "headers", let headers = member.value.members else {
                request.append((member.key, canonical(member.value)))
                continue
            }
            let named = headers.filter { !isComment($0.key) }.map { ($0.key.lowercased(), canonical($0.value)) }
            request.append((member.key, .object(named.sorted { $0.0 < $1.0 })))
        }
        var scenario: [(String, JSONNode)] = []
        if let rule = definition["scenario"] {
            scenario = [("name", rule["name"] ?? .null), ("when", rule["when"] ?? .string("Started"))]
        }
        let parts: [(String, JSONNode)] = [
            ("priority", .number(priority)),
            ("request", .object(request.sorted { $0.0 < $1.0 })),
            ("scenario", .object(scenario)),
        ]
        return JSONSerializer.string(.object(parts))
    }

    private static func isComment(_ key: String) -> Bool {
        key.hasPrefix("_") || key == "$schema"
    }

    private static func canonical(_ node: JSONNode) -> JSONNode {
        switch node.value {
        case .array(let elements):
            return .array(elements.map(canonical))
        case .object(let members):
            let kept = members.filter { !isComment($0.key) }.map { ($0.key, canonical($0.value)) }
            return .object(kept.sorted { $0.0 < $1.0 })
        default:
            return node
        }
    }
}
