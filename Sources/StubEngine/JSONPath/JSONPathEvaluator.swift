/// Walks a document along a compiled path. Every node it visits counts against a budget; once
/// spent, selections come back empty, so the cost of one evaluation is bounded whatever the
/// expression and the body.
struct JSONPathEvaluator {
    let root: JSONNode
    private(set) var budget: Int

    init(root: JSONNode, budget: Int) {
        self.root = root
        self.budget = budget
    }

    private mutating func spend(_ n: Int) -> Bool {
        budget -= n
        return budget >= 0
    }

    mutating func select(_ segments: [JSONPath.Segment], from start: [JSONNode]) -> [JSONNode] {
        var current = start
        for segment in segments {
            guard !current.isEmpty, budget >= 0 else { return [] }
            current = apply(segment, to: current)
        }
        return budget >= 0 ? current : []
    }

    private mutating func apply(_ segment: JSONPath.Segment, to nodes: [JSONNode]) -> [JSONNode] {
        var out: [JSONNode] = []
        for node in nodes {
            guard spend(1) else { return [] }
            switch segment {
            case .names(let names):
                guard case .object(let members) = node.value else { continue }
                for name in names {
                    // A repeated key: the last one, as Jackson keeps it.
                    if let member = members.last(where: { $0.key == name }) { out.append(member.value) }
                }
            case .indices(let indices):
                guard case .array(let elements) = node.value else { continue }
                for i in indices {
                    let resolved = i < 0 ? elements.count + i : i
                    if elements.indices.contains(resolved) { out.append(elements[resolved]) }
                }
            case .slice(let start, let end, let step):
                guard case .array(let elements) = node.value else { continue }
                let count = elements.count
                func clamp(_ i: Int) -> Int { i < 0 ? max(0, count + i) : min(i, count) }
                let from = clamp(start ?? 0), to = clamp(end ?? count)
                var i = from
                while i < to {
                    out.append(elements[i])
                    i += step
                }
            case .wildcard:
                switch node.value {
                case .object(let members): out.append(contentsOf: members.map(\.value))
                case .array(let elements): out.append(contentsOf: elements)
                default: break
                }
            case .descendants:
                collectDescendants(of: node, into: &out)
            case .filter(let filter):
                switch node.value {
                case .array(let elements):
                    for element in elements where spend(1) && filter.holds(for: element, evaluator: &self) { out.append(element) }
                case .object:
                    if filter.holds(for: node, evaluator: &self) { out.append(node) }
                default:
                    break
                }
            }
            if budget < 0 { return [] }
        }
        return out
    }

    /// The node and all below it, depth first in document order (Jayway's deep scan).
    private mutating func collectDescendants(of node: JSONNode, into out: inout [JSONNode]) {
        var stack = [node]
        while let next = stack.popLast() {
            guard spend(1) else { return }
            out.append(next)
            switch next.value {
            case .object(let members): stack.append(contentsOf: members.reversed().map(\.value))
            case .array(let elements): stack.append(contentsOf: elements.reversed())
            default: break
            }
        }
    }

    /// A path's final function. `definite` tells whether the selection was one value (whose
    /// length is asked) or a list (whose length is its count).
    mutating func apply(_ function: JSONPath.Function, to nodes: [JSONNode], definite: Bool) -> JSONNode? {
        let subject: JSONNode? = definite ? nodes.first : .array(nodes)
        guard let subject else { return nil }
        switch function {
        case .length, .size:
            switch subject.value {
            case .array(let e): return .number(e.count)
            case .object(let m): return .number(m.count)
            case .string(let s): return .number(s.count)
            default: return nil
            }
        case .keys:
            guard case .object(let members) = subject.value else { return nil }
            return .array(members.map { .string($0.key) })
        case .min, .max, .avg, .sum:
            guard case .array(let elements) = subject.value else { return nil }
            let numbers = elements.compactMap { $0.number?.value ?? $0.string.flatMap(Double.init) }
            guard !numbers.isEmpty else { return nil }
            let value: Double
            switch function {
            case .min: value = numbers.min()!
            case .max: value = numbers.max()!
            case .sum: value = numbers.reduce(0, +)
            default: value = numbers.reduce(0, +) / Double(numbers.count)
            }
            return JSONNode(.number(JSONNumber(text: Self.javaDouble(value), value: value)))
        }
    }

    /// How Java prints a double (`2.0`, `1.5`): the functions' results are doubles in Jayway.
    static func javaDouble(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e7 { return String(Int(value)) + ".0" }
        return String(value)
    }
}
