import JSON
import StubEngine

/// One entry of a HAR file, as far as an import needs it.
struct HAREntry {
    let index: Int
    /// The entry's object, for positions in messages.
    let node: JSONNode
    let method: String
    let url: String
    /// The request body as recorded (`postData.text`), with its MIME type.
    let requestBody: (mimeType: String, text: String)?
    let status: Int
    let responseHeaders: [(name: String, value: String)]
    let mimeType: String?
    /// `content.text`: nil when the body was not recorded.
    let text: String?
    /// `content.encoding`: `base64` for binary bodies.
    let encoding: String?
    /// `content.size`: the decoded length, when the tool recorded it (-1 or absent when not).
    let size: Int?
    /// The values of the request's `Cookie` fields: where the import finds the sessions the
    /// capture walked.
    let requestCookieFields: [String]
}

/// Reads HAR 1.2 (`{"log": {"entries": [...]}}`) as browsers' dev tools, Charles, Proxyman and
/// Insomnia export it. Entries that lack what a stub needs are returned as malformed, with why.
enum HARArchive {
    struct Malformed {
        let index: Int
        let node: JSONNode
        let reason: String
    }

    static func entries(
        _ root: JSONNode,
        file: String
    ) -> Result<(entries: [HAREntry], malformed: [Malformed]), ImportProblem> {
        guard let entries = root["log"]?["entries"]?.elements else {
            return .failure(
                ImportProblem(
                    .error,
                    file: file,
                    position: root.position,
                    message:
                        """
                        not a HAR file: expected {\"log\": {\"entries\": [...]}}, as browsers and proxies \
                        export (HAR 1.2)
                        """
                )
            )
        }
        var decoded: [HAREntry] = []
        var malformed: [Malformed] = []
        for (index, node) in entries.enumerated() {
            switch entry(node, index) {
            case .success(let entry): decoded.append(entry)
            case .failure(let why): malformed.append(Malformed(index: index, node: node, reason: why.message))
            }
        }
        return .success((decoded, malformed))
    }

    private static func entry(_ node: JSONNode, _ index: Int) -> Result<HAREntry, ImportFailure> {
        guard let request = node["request"], request.members != nil else {
            return .failure(ImportFailure("no request"))
        }
        guard let method = request["method"]?.string, let url = request["url"]?.string else {
            return .failure(ImportFailure("the request has no method or url"))
        }
        guard let response = node["response"], response.members != nil else {
            return .failure(ImportFailure("no response"))
        }
        guard let status = response["status"]?.wholeNumber else {
            return .failure(ImportFailure("the response has no status"))
        }
        let cookieFields: [String] = (request["headers"]?.elements ?? []).compactMap { header in
            guard header["name"]?.string?.lowercased() == "cookie" else { return nil }
            return header["value"]?.string
        }
        var body: (String, String)?
        if let post = request["postData"], let text = post["text"]?.string {
            body = (post["mimeType"]?.string ?? "", text)
        }
        let headers: [(name: String, value: String)] = (response["headers"]?.elements ?? []).compactMap { header in
            guard let name = header["name"]?.string, let value = header["value"]?.string else { return nil }
            return (name, value)
        }
        let content = response["content"]
        return .success(
            HAREntry(
                index: index,
                node: node,
                method: method,
                url: url,
                requestBody: body,
                status: status,
                responseHeaders: headers,
                mimeType: content?["mimeType"]?.string,
                text: content?["text"]?.string,
                encoding: content?["encoding"]?.string,
                size: content?["size"]?.wholeNumber,
                requestCookieFields: cookieFields
            )
        )
    }
}
