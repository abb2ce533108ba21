import JSON
import StubEngine

/// The `multipart` body matcher of a stub file:
///
///     "body": {"multipart": {
///         "fields": {"caption": "Holiday", "album": {"present": true}},
///         "files": {"photo": {"filename": {"matches": ".+\\.jpg"}, "contentType": "image/jpeg"}}
///     }}
enum MultipartDecoder {
    static func decode(_ c: inout DecodingContext, _ node: JSONNode, _ path: String) -> MultipartCondition? {
        guard c.checkKeys(node, path, allowed: StubFormat.multipartKeys, what: "a multipart matcher") else {
            return nil
        }
        var condition = MultipartCondition(fields: [], files: [])
        if let fields = node["fields"] {
            condition.fields = RequestDecoder.decodeMatcherMap(&c, fields, path + ".fields", what: "form fields")
        }
        if let files = node["files"] {
            guard let members = files.members else {
                c.error(
                    path + ".files",
                    files,
                    "expected an object of files, name to conditions, found \(files.kindDescription)"
                )
                return nil
            }
            for member in members {
                if let file = decodeFile(&c, member.value, path + ".files" + DecodingContext.pathComponent(member.key))
                {
                    condition.files.append((member.key, file))
                }
            }
        }
        // Counted as written, so a field whose matcher was refused is not reported twice.
        let named = (node["fields"]?.members?.count ?? 0) + (node["files"]?.members?.count ?? 0)
        guard named > 0 else {
            c.error(path, node, "name at least one field (\"fields\") or file (\"files\") to check")
            return nil
        }
        return condition
    }

    /// `{}` (a file of this name), or conditions on its part: `filename`, `contentType`,
    /// `content`, each a matcher; or `{"absent": true}`.
    private static func decodeFile(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String
    ) -> MultipartCondition.FileCondition? {
        guard c.checkKeys(node, path, allowed: StubFormat.multipartFileKeys, what: "a file's conditions") else {
            return nil
        }
        var file = MultipartCondition.FileCondition()
        if let absent = node["absent"] {
            guard absent.bool == true, node.members?.count == 1 else {
                c.error(path + ".absent", absent, "\"absent\": true stands alone: no file of this name was sent")
                return nil
            }
            file.absent = true
            return file
        }
        if let filename = node["filename"] {
            file.filename = RequestDecoder.decodeMatcher(&c, filename, path + ".filename")
        }
        if let type = node["contentType"] {
            file.contentType = RequestDecoder.decodeMatcher(&c, type, path + ".contentType")
        }
        if let content = node["content"] { file.content = RequestDecoder.decodeMatcher(&c, content, path + ".content") }
        return file
    }
}
