import HTTP1
import JSONSchema
import StubEngine

/// What one operation asks of a request, read once at load: its parameters (the path item's
/// and its own, its own winning), its request body and its security requirements, every `$ref`
/// followed. Checking a request then only walks these and runs the validator on the values.
/// Classes (the operation, its body and media types): a check borrows them, never copies them.
final class OperationContract {
    struct Parameter {
        enum Location: String {
            case path
            case query
            case header
            case cookie
        }

        enum Style: String {
            case simple
            case form
            case label
            case matrix
            case spaceDelimited
            case pipeDelimited
            case deepObject
        }

        let name: String
        let location: Location
        let required: Bool
        let style: Style
        let explode: Bool
        /// The parameter's `schema`, or the schema of its one `content` media type.
        let schema: LocatedNode?
        /// `schema`, compiled at load.
        let validation: CompiledSchemaID?
        /// A `content` parameter (a JSON value in a query string) is parsed as JSON.
        let isJSONContent: Bool
        /// Where the parameter is written, for the violation's rule.
        let node: LocatedNode
    }

    final class Body {
        let required: Bool
        /// Each documented media type with its schema.
        let media: [Media]
        let node: LocatedNode

        init(required: Bool, media: [Media], node: LocatedNode) {
            self.required = required
            self.media = media
            self.node = node
        }
    }

    final class Media {
        /// As the document writes it, and as compared (`application/json`).
        let type: String
        let essence: String
        let isJSON: Bool
        let schema: LocatedNode?
        /// `schema`, compiled at load.
        let validation: CompiledSchemaID?

        init(type: String, essence: String, isJSON: Bool, schema: LocatedNode?, validation: CompiledSchemaID?) {
            self.type = type
            self.essence = essence
            self.isJSON = isJSON
            self.schema = schema
            self.validation = validation
        }
    }

    /// One way to be let in: every scheme it names present at once (an empty one lets anyone in).
    struct SecurityAlternative {
        let schemes: [SecurityScheme]
    }

    enum SecurityScheme {
        /// An API key in a header, a query parameter or a cookie.
        case apiKey(name: String, location: Parameter.Location, scheme: String)
        /// `Authorization: Bearer ...` (http bearer, oauth2, openIdConnect), `Basic ...`, or
        /// another HTTP scheme by name.
        case authorization(prefix: String, scheme: String)
        /// Mutual TLS and unknown types: nothing in the request shows them.
        case unverifiable

        var description: String {
            switch self {
            case .apiKey(let name, let location, let scheme): "\(scheme) (the \(location.rawValue) \(name))"
            case .authorization(let prefix, let scheme): "\(scheme) (Authorization: \(prefix) ...)"
            case .unverifiable: "a scheme the request cannot show"
            }
        }
    }

    let operation: OpenAPIOperation
    let parameters: [Parameter]
    let body: Body?
    /// nil: no requirement applies.
    let security: [SecurityAlternative]?

    /// `POST /pets (createPet)`.
    var title: String {
        let name = "\(operation.method) \(operation.path)"
        guard let id = operation.operationId, !id.isEmpty else { return name }
        return "\(name) (\(id))"
    }

    /// Every schema is compiled into `validator` now, so a check compiles nothing.
    init(_ operation: OpenAPIOperation, documents: DocumentSet, root: LocatedNode, validator: SchemaValidator) {
        self.operation = operation
        var merged: [Parameter] = []
        let lists = [operation.pathItem["parameters"], operation.node["parameters"]]
        for list in lists {
            for raw in list?.elements ?? [] {
                guard let parameter = Self.parameter(raw, documents, validator) else { continue }
                merged.removeAll { $0.name == parameter.name && $0.location == parameter.location }
                merged.append(parameter)
            }
        }
        parameters = merged
        body = operation.node["requestBody"].flatMap { Self.body($0, documents, validator) }
        let requirements = operation.node["security"] ?? root["security"]
        security = requirements?.elements.map { list in
            list.compactMap { requirement in
                guard requirement.isObject else { return nil }
                let schemes = (requirement.members ?? []).map { name, _ in
                    Self.scheme(named: name, root: root, documents: documents)
                }
                return SecurityAlternative(schemes: schemes)
            }
        }
    }

    private static func parameter(
        _ raw: LocatedNode,
        _ documents: DocumentSet,
        _ validator: SchemaValidator
    ) -> Parameter? {
        guard let node = documents.dereference(raw), node.isObject,
            let name = node["name"]?.string,
            let location = node["in"]?.string.flatMap(Parameter.Location.init(rawValue:))
        else { return nil }
        let defaultStyle: Parameter.Style = location == .query || location == .cookie ? .form : .simple
        let style = node["style"]?.string.flatMap(Parameter.Style.init(rawValue:)) ?? defaultStyle
        var schema = node["schema"]
        var isJSONContent = false
        if schema == nil, let content = node["content"]?.members?.first {
            schema = content.value["schema"]
            isJSONContent = MediaTypes.isJSON(content.key)
        }
        let resolved = schema.flatMap { documents.dereference($0) }
        return Parameter(
            name: name,
            location: location,
            required: location == .path || node["required"]?.node.bool == true,
            style: style,
            explode: node["explode"]?.node.bool ?? (style == .form),
            schema: resolved,
            validation: resolved.map(validator.compile),
            isJSONContent: isJSONContent,
            node: node
        )
    }

    private static func body(_ raw: LocatedNode, _ documents: DocumentSet, _ validator: SchemaValidator) -> Body? {
        guard let node = documents.dereference(raw), node.isObject else { return nil }
        let media = (node["content"]?.members ?? []).map { type, value in
            let schema = documents.dereference(value).flatMap { $0["schema"] }
            return Media(
                type: type,
                essence: MediaTypes.essence(type),
                isJSON: MediaTypes.isJSON(type),
                schema: schema,
                validation: schema.map(validator.compile)
            )
        }
        return Body(required: node["required"]?.node.bool == true, media: media, node: node)
    }

    private static func scheme(named name: String, root: LocatedNode, documents: DocumentSet) -> SecurityScheme {
        guard let raw = root["components"]?["securitySchemes"]?[name],
            let scheme = documents.dereference(raw)
        else { return .unverifiable }
        switch scheme["type"]?.string {
        case "apiKey":
            guard let key = scheme["name"]?.string,
                let location = scheme["in"]?.string.flatMap(Parameter.Location.init(rawValue:))
            else { return .unverifiable }
            return .apiKey(name: key, location: location, scheme: name)
        case "http":
            let kind = scheme["scheme"]?.string ?? "bearer"
            let prefix = kind.prefix(1).uppercased() + kind.dropFirst().lowercased()
            return .authorization(prefix: prefix, scheme: name)
        case "oauth2", "openIdConnect":
            return .authorization(prefix: "Bearer", scheme: name)
        default:
            return .unverifiable
        }
    }
}
