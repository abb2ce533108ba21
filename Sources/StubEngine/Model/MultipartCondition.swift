import HTTP1

/// A `multipart/form-data` body (a form with files, as browsers and upload APIs send it): its
/// fields and files by name. Only the named ones are checked.
package struct MultipartCondition: Sendable {
    /// A field: the text of the parts with this name and no file name.
    package var fields: [(name: String, matcher: ValueMatcher)]
    /// A file: a part with this name and a file name, every condition of which holds.
    package var files: [(name: String, file: FileCondition)]

    package struct FileCondition: Sendable {
        package var filename: ValueMatcher?
        package var contentType: ValueMatcher?
        /// The file's bytes as UTF-8 text.
        package var content: ValueMatcher?
        /// No file of this name was sent.
        package var absent = false

        func holds(for part: MultipartFormData.Part) -> Bool {
            if let filename, !filename.matches(part.filename ?? "") { return false }
            if let contentType, !contentType.matches(part.contentType.map { [$0] } ?? []) { return false }
            if let content, !content.matches(String(decoding: part.body, as: UTF8.self)) { return false }
            return true
        }

        var description: String {
            if absent { return "absent" }
            var parts: [String] = []
            if let filename { parts.append("filename \(filename.description)") }
            if let contentType { parts.append("type \(contentType.description)") }
            if let content { parts.append("content \(content.description)") }
            return parts.isEmpty ? "a file" : "a file with " + parts.joined(separator: ", ")
        }

        package init(
            filename: ValueMatcher? = nil,
            contentType: ValueMatcher? = nil,
            content: ValueMatcher? = nil,
            absent: Bool = false
        ) {
            self.filename = filename
            self.contentType = contentType
            self.content = content
            self.absent = absent
        }
    }

    /// The texts of the fields named `name`.
    static func fieldValues(_ name: String, in parts: [MultipartFormData.Part]) -> [String] {
        parts.compactMap { $0.name == name && $0.filename == nil ? String(decoding: $0.body, as: UTF8.self) : nil }
    }

    /// Whether the files named `name` satisfy `file`.
    static func fileHolds(_ name: String, _ file: FileCondition, in parts: [MultipartFormData.Part]) -> Bool {
        let named = parts.filter { $0.name == name && $0.filename != nil }
        return file.absent ? named.isEmpty : named.contains { file.holds(for: $0) }
    }

    func holds(for parts: [MultipartFormData.Part]) -> Bool {
        fields.allSatisfy { $0.matcher.matches(Self.fieldValues($0.name, in: parts)) }
            && files.allSatisfy { Self.fileHolds($0.name, $0.file, in: parts) }
    }

    var description: String {
        let named =
            fields.map { "field \($0.name) \($0.matcher.description)" }
            + files.map { "file \($0.name): \($0.file.description)" }
        return "multipart with " + named.joined(separator: ", ")
    }

    package init(fields: [(name: String, matcher: ValueMatcher)], files: [(name: String, file: FileCondition)]) {
        self.fields = fields
        self.files = files
    }
}
