#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import JSONSchema
import StubEngine

/// A stub response's body against the documented content: the media type, then the schema.
extension StubChecker {
    func checkBody(
        _ response: StubResponse,
        _ node: JSONNode,
        _ documented: LocatedNode,
        key: String,
        _ operation: OpenAPIOperation,
        file: String,
        path: String,
        template: Bool
    ) {
        let contentType = response.prepared.headers["Content-Type"] ?? "application/octet-stream"
        let bodyKey = ["body", "bodyFile", "bodyBase64"].first { node[$0] != nil } ?? "body"
        let bodyNode = node[bodyKey] ?? node
        let bodyPath = path + "." + bodyKey
        guard let content = documented["content"]?.members, !content.isEmpty else {
            report(
                .warning,
                file,
                bodyNode,
                bodyPath,
                "\(operation.method) \(operation.path) documents no body for \(key), but the stub sends one"
            )
            return
        }
        let media =
            content.first { MediaTypes.essence($0.key) == MediaTypes.essence(contentType) }
            ?? content.first { MediaTypes.covers($0.key, contentType) }
        guard let media else {
            report(
                .error,
                file,
                bodyNode,
                bodyPath,
                """
                Content-Type \(MediaTypes.essence(contentType)) is not documented for \(key) of \
                \(operation.method) \(operation.path) (documented: \(content.map(\.key).joined(separator: ", ")))
                """
            )
            return
        }
        guard let schema = media.value["schema"] else { return }
        guard
            let body = instance(
                response,
                node,
                bodyKey,
                bodyNode,
                bodyPath,
                file: file,
                json: MediaTypes.isJSON(contentType)
            )
        else { return }
        validator.acceptsTemplateStrings = template
        for failure in validator.validate(body.value, against: schema, at: body.path) {
            report(
                .error,
                body.file,
                body.value,
                failure.instancePath,
                "\(failure.message) (schema: \(failure.schemaLocation))",
                position: body.fixedPosition ?? failure.position
            )
        }
    }

    /// The body as a value to validate, with where its findings point: an inline JSON body at its
    /// own values; a body file at the values in that file; JSON inside a string or base64 at the
    /// body's key. A JSON body that does not parse (a deliberately truncated one, say) is a warning.
    struct Instance {
        let value: JSONNode
        let file: String
        let path: String
        let fixedPosition: SourcePosition?
    }

    private func instance(
        _ response: StubResponse,
        _ node: JSONNode,
        _ bodyKey: String,
        _ bodyNode: JSONNode,
        _ bodyPath: String,
        file: String,
        json: Bool
    ) -> Instance? {
        if bodyKey == "body", json, bodyNode.string == nil {
            return Instance(value: bodyNode, file: file, path: bodyPath, fixedPosition: nil)
        }
        let bytes = response.prepared.body
        var target = (file: file, path: bodyPath, position: Optional(bodyNode.position))
        if bodyKey == "bodyFile", let relative = bodyNode.string {
            target = (Self.relativeDisplay(file, relative), "$", nil)
        }
        guard json else {
            guard let text = String(bytes: bytes, encoding: .utf8) else { return nil }
            return Instance(
                value: JSONNode(.string(text), at: bodyNode.position),
                file: file,
                path: bodyPath,
                fixedPosition: bodyNode.position
            )
        }
        do {
            let value = try JSONParser.parse(bytes)
            return Instance(value: value, file: target.file, path: target.path, fixedPosition: target.position)
        } catch {
            report(
                .warning,
                target.file,
                bodyNode,
                target.path,
                """
                the body is not valid JSON (\(error.position): \(error.message)), so it was not checked against \
                the schema
                """,
                position: target.position ?? error.position
            )
            return nil
        }
    }

    /// `stubs/__files/x.json` for a stub file `stubs/weather.json` and `__files/x.json`.
    static func relativeDisplay(_ stubFile: String, _ relative: String) -> String {
        let folder = stubFile.lastIndex(of: "/").map { String(stubFile[..<$0]) } ?? ""
        let joined = folder.isEmpty ? relative : folder + "/" + relative
        // `.` and `..` resolved in the text, as the loader resolves them (no file system).
        var parts: [Substring] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
                continue
            }
            parts.append(part)
        }
        return (joined.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
    }
}
