import HTTP1

extension RequestMatcher {
    /// For a near-miss report: a body that is not multipart, or each field and file that
    /// differs, as `multipart.fields.NAME` / `multipart.files.NAME`.
    static func multipartMismatches(_ condition: MultipartCondition, _ facts: RequestFacts) -> [Mismatch] {
        guard let parts = facts.multipartParts else {
            return [
                Mismatch(
                    condition: "body",
                    expected: condition.description,
                    actual: facts.multipartProblem ?? "not multipart/form-data"
                )
            ]
        }
        var result: [Mismatch] = []
        for field in condition.fields {
            let actual = MultipartCondition.fieldValues(field.name, in: parts)
            if !field.matcher.matches(actual) {
                result.append(
                    Mismatch(
                        condition: "multipart.fields.\(field.name)",
                        expected: field.matcher.description,
                        actual: describe(actual)
                    )
                )
            }
        }
        for (name, file) in condition.files where !MultipartCondition.fileHolds(name, file, in: parts) {
            let sent = parts.filter { $0.name == name && $0.filename != nil }.map { part in
                "\"\(part.filename ?? "")\"" + (part.contentType.map { " (\($0))" } ?? "")
                    + ", \(part.body.count) bytes"
            }
            result.append(
                Mismatch(
                    condition: "multipart.files.\(name)",
                    expected: file.description,
                    actual: sent.isEmpty ? "no file" : sent.joined(separator: "; ")
                )
            )
        }
        return result
    }
}
