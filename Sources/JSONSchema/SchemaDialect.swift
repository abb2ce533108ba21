import JSON

/// Which rules a Schema Object follows. OpenAPI 3.0 uses its own variant of JSON Schema draft 5
/// (`nullable`, boolean `exclusiveMinimum`, `$ref` that replaces its siblings); OpenAPI 3.1 uses
/// JSON Schema 2020-12 (`type` arrays, `const`, `prefixItems`, `$defs`, `$ref` beside other keywords).
package enum SchemaDialect: Sendable, Equatable {
    case openAPI30
    case jsonSchema2020

    /// `nullable: true` adds null to the allowed values (OpenAPI 3.0 only).
    var hasNullable: Bool { self == .openAPI30 }
    /// In OpenAPI 3.0 a `$ref` object's other keywords are ignored; in 2020-12 they apply too.
    var refReplacesSiblings: Bool { self == .openAPI30 }
}

/// One way a value fails a schema: where in the value (a JSON path and the line and column it was
/// read from), which keyword of which schema (its location, to open it in the spec), and why.
package struct SchemaFailure: Sendable, Equatable {
    package let instancePath: String
    package let position: SourcePosition
    package let schemaLocation: NodeLocation
    package let message: String

    package init(instancePath: String, position: SourcePosition, schemaLocation: NodeLocation, message: String) {
        self.instancePath = instancePath
        self.position = position
        self.schemaLocation = schemaLocation
        self.message = message
    }
}
