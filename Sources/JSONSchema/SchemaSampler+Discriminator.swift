import JSON

extension SchemaSampler {
    /// OpenAPI's `discriminator` beside a `oneOf`/`anyOf`: the property whose value says which
    /// branch an object is. A sample taken from one branch must carry the value that selects
    /// that branch, or a client that dispatches on it decodes the wrong type.
    struct Discriminator {
        let propertyName: String
        /// `mapping`: value -> the reference (or bare schema name) it selects, in document order.
        let mapping: [(value: String, target: String)]

        init?(_ owner: LocatedNode) {
            guard let node = owner.node["discriminator"], let propertyName = node["propertyName"]?.string else {
                return nil
            }
            self.propertyName = propertyName
            mapping = (node["mapping"]?.members ?? []).compactMap { member in
                member.value.string.map { (member.key, $0) }
            }
        }

        /// The value that selects `branch`: the first mapping entry that names its `$ref`, else
        /// (as OpenAPI says when the mapping is silent) the name of the schema it refers to.
        /// Nil for a branch written inline, which no value can name.
        func value(selecting branch: LocatedNode) -> String? {
            guard let reference = branch.node["$ref"]?.string else { return nil }
            let name = Self.schemaName(reference)
            if let entry = mapping.first(where: { $0.target == reference || $0.target == name }) {
                return entry.value
            }
            return name.isEmpty ? nil : name
        }

        /// The last segment of a reference: `#/components/schemas/Cat` and `./cat.yaml` give
        /// `Cat` and `cat` (the file's name without its extension).
        static func schemaName(_ reference: String) -> String {
            let last = reference.split(separator: "/").last.map(String.init) ?? reference
            guard !reference.contains("#"), let dot = last.lastIndex(of: ".") else { return last }
            return String(last[..<dot])
        }
    }
}
