import Foundation
import HTTP1
import JSON
import JSONSchema
import StubEngine
@testable import StubImport

/// Requests made from a document for the contract's corpus tests: for each operation one that
/// keeps every rule (parameters, security, body sampled from their schemas), and one broken
/// request per kind of rule the operation has (a typed parameter given text, a required one
/// left out, no credentials, a body of the wrong shape, an undocumented media type).
struct ContractRequestMaker {
    struct Request {
        var method: String
        var path: String
        var query: [(String, String)] = []
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        /// The body's value and schema when the sampler made it (no documented example), so a
        /// test can tell the sampler's limits from the check's.
        var sampled: (value: JSONNode, schema: LocatedNode)?
        /// A form cannot carry an empty object (Box requires a grant_type it never describes,
        /// which the sampler makes `{}`): the sample's top-level keys the form lost.
        var lostInForm = false

        var target: String {
            guard !query.isEmpty else { return path }
            return path + "?" + query.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        }

        static func encode(_ text: String) -> String {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~[]"))
            return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
        }
    }

    let document: OpenAPIDocument
    let sampler: SchemaSampler
    let values: ParameterValues
    let validator: SchemaValidator

    init(_ document: OpenAPIDocument) {
        self.document = document
        sampler = SchemaSampler(documents: document.documents, dialect: document.dialect)
        validator = SchemaValidator(documents: document.documents, dialect: document.dialect)
        validator.direction = .request
        values = ParameterValues(documents: document.documents)
    }

    // MARK: Valid

    func valid(_ operation: OperationContract) -> Request {
        let op = operation.operation
        var path = (op.basePaths.first ?? "") + op.path
        for parameter in operation.parameters where parameter.location == .path {
            let text = texts(parameter).first ?? "1"
            path = path.replacingOccurrences(of: "{\(parameter.name)}", with: Request.encode(text))
        }
        var request = Request(method: op.method, path: path)
        for parameter in operation.parameters where parameter.required && parameter.location != .path {
            add(parameter, to: &request)
        }
        addCredentials(operation, &request)
        if let body = operation.body, let media = preferredMedia(body) {
            let (bytes, sampled) = bodyBytes(media, body)
            if body.required || !bytes.isEmpty {
                request.headers.append(("Content-Type", concrete(media.type)))
                request.body = bytes.isEmpty ? Array("unused=1".utf8) : bytes
                request.sampled = sampled
                if let sampled, MediaTypes.essence(media.type) == "application/x-www-form-urlencoded" {
                    let sent = Set(FormFields.parse(request.body).map { FormFields.path($0.0)[0] })
                    request.lostInForm = (sampled.value.members ?? []).contains { !sent.contains($0.key) }
                }
            }
        }
        return request
    }

    private func add(_ parameter: OperationContract.Parameter, to request: inout Request) {
        switch parameter.location {
        case .query:
            if let schema = parameter.schema, values.types(of: schema) == ["object"], parameter.style == .deepObject {
                for member in sample(parameter).members ?? [] {
                    request.query.append(("\(parameter.name)[\(member.key)]", text(member.value)))
                }
            } else if parameter.style == .form, parameter.explode {
                for value in texts(parameter) { request.query.append((parameter.name, value)) }
            } else {
                request.query.append((parameter.name, texts(parameter).joined(separator: ",")))
            }
        case .header:
            guard !["accept", "content-type", "authorization"].contains(parameter.name.lowercased()) else { return }
            request.headers.append((parameter.name, texts(parameter).joined(separator: ",")))
        case .cookie:
            request.headers.append(("Cookie", "\(parameter.name)=\(texts(parameter).joined(separator: ","))"))
        case .path:
            break
        }
    }

    private func sample(_ parameter: OperationContract.Parameter) -> JSONNode {
        parameter.schema.map { sampler.sample($0) } ?? .string("1")
    }

    /// A parameter's sample as the texts a request carries: one per array item.
    private func texts(_ parameter: OperationContract.Parameter) -> [String] {
        let value = sample(parameter)
        if parameter.isJSONContent { return [JSONSerializer.string(value)] }
        if let elements = value.elements { return elements.map(text) }
        if let members = value.members {
            return [members.map { "\($0.key),\(text($0.value))" }.joined(separator: ",")]
        }
        return [text(value)]
    }

    private func text(_ value: JSONNode) -> String {
        switch value.value {
        case .string(let s): s
        case .null: "null"
        default: JSONSerializer.string(value)
        }
    }

    private func addCredentials(_ operation: OperationContract, _ request: inout Request) {
        guard let alternative = operation.security?.first else { return }
        for scheme in alternative.schemes {
            switch scheme {
            case .apiKey(let name, .query, _): request.query.append((name, "key"))
            case .apiKey(let name, .cookie, _): request.headers.append(("Cookie", "\(name)=key"))
            case .apiKey(let name, _, _): request.headers.append((name, "key"))
            case .authorization(let prefix, _): request.headers.append(("Authorization", "\(prefix) dG9rZW46c2VjcmV0"))
            case .unverifiable: break
            }
        }
    }

    private func preferredMedia(_ body: OperationContract.Body) -> OperationContract.Media? {
        body.media.first { MediaTypes.isJSON($0.type) }
            ?? body.media.first { MediaTypes.essence($0.type) == "application/x-www-form-urlencoded" }
            ?? body.media.first
    }

    /// A media type a request can carry: `*/*` and `image/*` made concrete.
    private func concrete(_ type: String) -> String {
        let essence = MediaTypes.essence(type)
        if essence == "*/*" || essence == "*" { return "application/octet-stream" }
        if essence.hasSuffix("/*") { return String(essence.dropLast()) + "x-any" }
        if essence == "multipart/form-data" { return "multipart/form-data; boundary=contract" }
        return essence
    }

    /// The documented example when there is one (what the API's authors call a good
    /// request), else a value made from the schema.
    private func bodyBytes(
        _ media: OperationContract.Media,
        _ body: OperationContract.Body
    ) -> ([UInt8], (value: JSONNode, schema: LocatedNode)?) {
        let documents = document.documents
        let written = documents.dereference(body.node["content"]?[media.type])
        let example =
            written?["example"].flatMap { documents.exampleValue($0) }
            ?? written?["examples"]?.members?.lazy.compactMap {
                documents.dereference($0.value)?["value"].flatMap { documents.exampleValue($0) }
            }
            .first
        // An example its own schema refuses (Box's revoke lacks grant_type) is no valid request.
        let checked = example.flatMap { value in
            media.schema.map { validator.validate(value, against: $0).isEmpty } == false ? nil : value
        }
        let value = checked ?? media.schema.map { sampler.sample($0) } ?? .object([])
        let sampled = checked == nil ? media.schema.map { (value, $0) } : nil
        return (bytes(value, media.type), sampled)
    }

    private func bytes(_ value: JSONNode, _ type: String) -> [UInt8] {
        let essence = MediaTypes.essence(type)
        if MediaTypes.isJSON(essence) { return JSONSerializer.bytes(value) }
        if essence == "application/x-www-form-urlencoded" {
            let fields = Self.formFields(value, prefix: nil)
            let text = fields.map { "\(Request.encode($0.0))=\(Request.encode($0.1))" }.joined(separator: "&")
            return Array(text.utf8)
        }
        if essence.hasPrefix("text/"), let s = value.string { return Array(s.utf8) }
        return Array("contract".utf8)
    }

    /// A value as bracket-named form fields (`a[b]=1`, `list[0]=x`).
    static func formFields(_ value: JSONNode, prefix: String?) -> [(String, String)] {
        switch value.value {
        case .object(let members):
            return members.flatMap { member in
                formFields(member.value, prefix: prefix.map { "\($0)[\(member.key)]" } ?? member.key)
            }
        case .array(let elements):
            return elements.enumerated().flatMap { formFields($0.element, prefix: "\(prefix ?? "")[\($0.offset)]") }
        case .string(let s):
            return prefix.map { [($0, s)] } ?? []
        case .null:
            return prefix.map { [($0, "")] } ?? []
        default:
            return prefix.map { [($0, JSONSerializer.string(value))] } ?? []
        }
    }

    // MARK: Broken

    /// One broken request per kind of rule the operation has, each with the kind the check
    /// must report.
    func broken(
        _ operation: OperationContract,
        from good: Request
    ) -> [(kind: ContractViolation.Kind, request: Request)] {
        var found: [(ContractViolation.Kind, Request)] = []
        var unknown = good
        unknown.path = "/__not_documented__" + unknown.path
        unknown.method = "GET"
        found.append((.operation, unknown))
        if let parameter = operation.parameters.first(where: { $0.location == .path && isTyped($0) }) {
            var request = good
            let op = operation.operation
            var path = (op.basePaths.first ?? "") + op.path
            for other in operation.parameters where other.location == .path {
                let text = other.name == parameter.name ? "not-a-value" : (texts(other).first ?? "1")
                path = path.replacingOccurrences(of: "{\(other.name)}", with: Request.encode(text))
            }
            request.path = path
            found.append((.path, request))
        }
        if let parameter = operation.parameters.first(where: { $0.location == .query && $0.required }) {
            var request = good
            request.query.removeAll { $0.0 == parameter.name || $0.0.hasPrefix(parameter.name + "[") }
            found.append((.query, request))
        } else if let parameter = operation.parameters.first(where: { $0.location == .query && isTyped($0) }) {
            var request = good
            request.query.append((parameter.name, "not-a-value"))
            found.append((.query, request))
        }
        let ignored = ["accept", "content-type", "authorization"]
        if let parameter = operation.parameters.first(where: {
            $0.location == .header && $0.required && !ignored.contains($0.name.lowercased())
        }) {
            var request = good
            request.headers.removeAll { $0.0.lowercased() == parameter.name.lowercased() }
            found.append((.header, request))
        }
        if let alternatives = operation.security, !alternatives.isEmpty,
            !alternatives.contains(where: {
                $0.schemes.isEmpty || $0.schemes.contains { if case .unverifiable = $0 { true } else { false } }
            })
        {
            var request = good
            request.headers.removeAll { $0.0 == "Authorization" || $0.0 == "Cookie" }
            for alternative in alternatives {
                for scheme in alternative.schemes {
                    if case .apiKey(let name, _, _) = scheme {
                        request.headers.removeAll { $0.0.lowercased() == name.lowercased() }
                        request.query.removeAll { $0.0 == name }
                    }
                }
            }
            found.append((.security, request))
        }
        if let body = operation.body, !body.media.isEmpty,
            !body.media.contains(where: { MediaTypes.essence($0.type).contains("*") })
        {
            var request = good
            request.headers.removeAll { $0.0 == "Content-Type" }
            request.headers.append(("Content-Type", "application/x-not-documented"))
            request.body = Array("x".utf8)
            found.append((.mediaType, request))
        }
        if let body = operation.body, let media = body.media.first(where: { MediaTypes.isJSON($0.type) }),
            media.schema != nil
        {
            var request = good
            request.headers.removeAll { $0.0 == "Content-Type" }
            request.headers.append(("Content-Type", concrete(media.type)))
            request.body = Array("{\"unterminated\": ".utf8)
            found.append((.body, request))
        }
        return found
    }

    /// A parameter text cannot satisfy: a number, a boolean, an enum.
    private func isTyped(_ parameter: OperationContract.Parameter) -> Bool {
        guard let schema = parameter.schema, !parameter.isJSONContent else { return false }
        let types = values.types(of: schema)
        if types.contains("string") || types.contains("object") || types.contains("array") || types.isEmpty {
            return document.documents.dereference(schema)?["enum"] != nil && types == ["string"]
        }
        return true
    }
}
