import HTTP1
import JSON
import StubEngine

/// A forwarded answer against the operation's documented responses, as `validate --openapi`
/// checks a stub's: the status is documented (exactly, by a range, or by `default`), the
/// headers marked required are there, and a body in a documented media type validates.
struct AnswerCheck {
    let checker: OpenAPIContract.Checker
    let operation: OperationContract

    func run(status: Int, headers: HeaderFields, body: [UInt8]?) -> [ContractViolation] {
        let documents = checker.documents
        let title = "\(operation.operation.method) \(operation.operation.path)"
        guard let responses = operation.operation.node["responses"], responses.isObject else { return [] }
        guard let (key, documented) = DocumentedResponses.documented(status: status, in: responses, documents) else {
            let keys = DocumentedResponses.keys(of: responses)
            return [
                ContractViolation(
                    .response,
                    place: "response.status",
                    message:
                        "status \(status) is not documented for \(title) (documented: \(keys.joined(separator: ", ")))",
                    rule: responses.location.description
                )
            ]
        }
        var found: [ContractViolation] = []
        for (name, raw) in documented["headers"]?.members ?? [] where !asciiCaseInsensitiveEquals(name, "Content-Type")
        {
            guard documents.dereference(raw)?["required"]?.node.bool == true, !headers.contains(name) else { continue }
            found.append(
                ContractViolation(
                    .response,
                    place: "response.header.\(name)",
                    message: "missing the header \(name), which the \(key) response requires",
                    rule: raw.location.description
                )
            )
        }
        guard let body, !body.isEmpty, let content = documented["content"]?.members, !content.isEmpty else {
            return found
        }
        let contentType = headers["Content-Type"] ?? "application/octet-stream"
        let media =
            content.first { MediaTypes.essence($0.key) == MediaTypes.essence(contentType) }
            ?? content.first { MediaTypes.covers($0.key, contentType) }
        guard let media else {
            found.append(
                ContractViolation(
                    .response,
                    place: "response.header.Content-Type",
                    message:
                        "Content-Type \(MediaTypes.essence(contentType)) is not documented for \(key) of \(title) "
                        + "(documented: \(content.map(\.key).joined(separator: ", ")))",
                    rule: documented.location.description
                )
            )
            return found
        }
        guard MediaTypes.isJSON(contentType), let schema = documents.dereference(media.value)?["schema"] else {
            return found
        }
        guard let value = try? JSONParser.parse(body, limits: .requestBody) else {
            found.append(ContractViolation(.response, place: "response.body", message: "the body is not JSON"))
            return found
        }
        checker.validator.direction = .response
        for failure in checker.validator.validate(value, against: schema, at: "$") {
            found.append(
                ContractViolation(
                    .response,
                    place: "response.body" + String(failure.instancePath.dropFirst()),
                    message: failure.message,
                    rule: failure.schemaLocation.description
                )
            )
        }
        return found
    }
}
