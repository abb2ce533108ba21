import JSON

/// Example values with `$ref`s in them. OpenAPI says an `example` is literal, but documents
/// split into many files (DigitalOcean's) write `example: {$ref: "examples.yml#/droplet"}`
/// and mean the value there, as Redocly and Prism read it; served literally, the app got
/// `{"$ref": "examples.yml#/droplet"}`. An object whose only key is a string `$ref` is
/// replaced by what it names, at any depth, with the limits schemas have: a chain that comes
/// back to itself is cut (and reported), and at most `maximumValues` values are copied.
extension DocumentSet {
    static let maximumExampleDepth = 64
    static let maximumExampleValues = 100_000

    /// The example with every reference in it replaced; nil when the example itself is a
    /// reference that does not resolve (reported where it is written).
    package func exampleValue(_ example: LocatedNode) -> JSONNode? {
        guard Self.containsReference(example.node, depth: 0) else { return example.node }
        var budget = Self.maximumExampleValues
        var visiting: Set<NodeLocation> = []
        return inline(example, depth: 0, budget: &budget, visiting: &visiting)
    }

    private func inline(
        _ located: LocatedNode,
        depth: Int,
        budget: inout Int,
        visiting: inout Set<NodeLocation>
    ) -> JSONNode? {
        budget -= 1
        guard budget > 0, depth < Self.maximumExampleDepth else {
            report(.warning, "this example is too large or too deep to copy in whole; it is cut here", at: located)
            return nil
        }
        var current = located
        if Self.isReference(current.node) {
            guard let target = dereference(current) else { return nil }
            guard !visiting.contains(target.location) else {
                report(
                    .warning,
                    "this $ref brings the example back inside itself; it is cut (treated as absent)",
                    at: current
                )
                return nil
            }
            current = target
        }
        visiting.insert(current.location)
        defer { visiting.remove(current.location) }
        switch current.node.value {
        case .object:
            var members: [JSONNode.Member] = []
            for member in current.node.members ?? [] {
                let child = LocatedNode(member.value, current.location.appending(member.key))
                guard let value = inline(child, depth: depth + 1, budget: &budget, visiting: &visiting) else {
                    continue
                }
                members.append(JSONNode.Member(key: member.key, keyPosition: member.keyPosition, value: value))
            }
            return JSONNode(.object(members), at: current.node.position)
        case .array(let elements):
            var values: [JSONNode] = []
            for (i, element) in elements.enumerated() {
                let child = LocatedNode(element, current.location.appending(i))
                if let value = inline(child, depth: depth + 1, budget: &budget, visiting: &visiting) {
                    values.append(value)
                }
            }
            return JSONNode(.array(values), at: current.node.position)
        default:
            return current.node
        }
    }

    /// `{"$ref": "..."}` and nothing else.
    static func isReference(_ node: JSONNode) -> Bool {
        guard let members = node.members, members.count == 1 else { return false }
        return members[0].key == "$ref" && members[0].value.string != nil
    }

    /// Whether a value holds a reference anywhere (most examples hold none, and are then used as
    /// they are, without a copy).
    private static func containsReference(_ node: JSONNode, depth: Int) -> Bool {
        guard depth < maximumExampleDepth else { return false }
        switch node.value {
        case .object(let members):
            if isReference(node) { return true }
            return members.contains { containsReference($0.value, depth: depth + 1) }
        case .array(let elements):
            return elements.contains { containsReference($0, depth: depth + 1) }
        default:
            return false
        }
    }
}
