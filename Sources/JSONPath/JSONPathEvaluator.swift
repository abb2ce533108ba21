import JSON

/// Walks a document along a compiled path. Every node it visits counts against a budget; once
/// spent, selections come back empty, so the cost of one evaluation is bounded whatever the
/// expression and the body. `failed` records an error Jayway would throw (a function without
/// the input it needs, a set relation over a value that is not a list): the evaluation is
/// then abandoned and selects nothing.
struct JSONPathEvaluator {
    let root: JSONNode
    var budget: Int
    var failed = false

    init(root: JSONNode, budget: Int) {
        self.root = root
        self.budget = budget
    }

    mutating func spend(_ n: Int) -> Bool {
        budget -= n
        return budget >= 0
    }

    mutating func select(_ segments: [JSONPath.Segment], from start: [JSONNode]) -> [JSONNode] {
        var current = start
        var position = 0
        while position < segments.count {
            guard !current.isEmpty, budget >= 0, !failed else { return [] }
            if case .descendants = segments[position], position + 1 < segments.count,
                case .filter(let filter) = segments[position + 1]
            {
                current = scan(current, filter, last: position + 2 == segments.count)
                position += 2
                continue
            }
            current = apply(segments[position], to: current)
            position += 1
        }
        return budget >= 0 && !failed ? current : []
    }

    private mutating func apply(_ segment: JSONPath.Segment, to nodes: [JSONNode]) -> [JSONNode] {
        var out: [JSONNode] = []
        for node in nodes {
            guard spend(1) else { return [] }
            switch segment {
            case .names(let names):
                guard case .object(let members) = node.value else { continue }
                for name in names {
                    if let member = Self.member(name, of: members) { out.append(member) }
                }
            case .mergedNames(let names):
                guard case .object(let members) = node.value else { continue }
                let found = names.compactMap { name -> JSONNode.Member? in
                    guard let value = Self.member(name, of: members) else { return nil }
                    return JSONNode.Member(key: name, keyPosition: value.position, value: value)
                }
                out.append(JSONNode(.object(found), at: node.position))
            case .indices(let indices):
                guard case .array(let elements) = node.value else { continue }
                for i in indices {
                    let resolved = i < 0 ? elements.count + i : i
                    if elements.indices.contains(resolved) { out.append(elements[resolved]) }
                }
            case .slice(let start, let end, let step):
                guard case .array(let elements) = node.value else { continue }
                for i in Self.sliceIndices(count: elements.count, start: start, end: end, step: step) {
                    guard spend(1) else { return [] }
                    out.append(elements[i])
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
                    for element in elements where spend(1) && filter.holds(for: element, evaluator: &self) {
                        out.append(element)
                    }
                case .object:
                    if filter.holds(for: node, evaluator: &self) { out.append(node) }
                default:
                    break
                }
            case .function(let function):
                guard let result = call(function, on: node) else {
                    failed = true
                    return []
                }
                out.append(result)
            }
            if budget < 0 || failed { return [] }
        }
        return out
    }

    /// A repeated key: the last one, as Jackson keeps it.
    private static func member(_ name: String, of members: [JSONNode.Member]) -> JSONNode? {
        members.last { $0.key == name }?.value
    }

    /// Jayway's slices: `[from:]` counts a negative start from the end; `[:to]` a negative end;
    /// `[from:to]` resolves each index on its own, so `[1:-1]` is empty and `[-3:-1]` the two
    /// before the last. A step (not in Jayway) takes every step-th of these.
    static func sliceIndices(count: Int, start: Int?, end: Int?, step: Int) -> [Int] {
        var candidates: StrideTo<Int>
        switch (start, end) {
        case (let from?, nil):
            candidates = stride(from: max(0, from < 0 ? count + from : from), to: count, by: step)
        case (let from?, let to?):
            candidates = stride(from: from, to: min(count, to), by: step)
        case (nil, let to?):
            candidates = stride(from: 0, to: min(count, to < 0 ? count + to : to), by: step)
        case (nil, nil):
            candidates = stride(from: 0, to: count, by: step)
        }
        return candidates.compactMap { i in
            let resolved = i < 0 ? count + i : i
            return resolved >= 0 && resolved < count ? resolved : nil
        }
    }

    /// `..[?(...)]` as Jayway's scan does it: depth first in document order, each object that
    /// passes is selected once; an array is tested as a whole (rarely true: `@.x` of an array is
    /// missing), and when it passes, its elements that pass (the filter last) or all of them
    /// (more steps follow) are selected.
    private mutating func scan(_ nodes: [JSONNode], _ filter: JSONPathFilter, last: Bool) -> [JSONNode] {
        var out: [JSONNode] = []
        var stack = Array(nodes.reversed())
        while let node = stack.popLast() {
            guard spend(1), !failed else { return [] }
            switch node.value {
            case .object(let members):
                if filter.holds(for: node, evaluator: &self) { out.append(node) }
                stack.append(contentsOf: members.reversed().map(\.value))
            case .array(let elements):
                if filter.holds(for: node, evaluator: &self) {
                    for element in elements where !last || filter.holds(for: element, evaluator: &self) {
                        out.append(element)
                    }
                }
                stack.append(contentsOf: elements.reversed())
            default:
                break
            }
        }
        return failed ? [] : out
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

    /// An argument's value: a literal, or a path read from the document's root (a definite one
    /// that finds nothing is an error, as in Jayway; an indefinite one gives its list).
    mutating func argumentValue(_ argument: JSONPathFunction.Argument) -> JSONNode? {
        switch argument {
        case .literal(let node):
            return node
        case .path(let path):
            let nodes = select(path.segments, from: [root])
            if failed { return nil }
            return path.isDefinite ? nodes.first : .array(nodes)
        }
    }
}
