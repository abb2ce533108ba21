#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSONSchema
import StubEngine

/// One response of an operation, with the status a stub gives it.
package struct DocumentedResponse {
    /// As written under `responses`: `200`, `4XX`, `default`.
    package let key: String
    /// `200` for `200`; `400` for `4XX`; `500` for `default` (or 200 when it answers by default).
    package let status: Int
    package let node: LocatedNode
}

/// The responses of an operation as stubs use them: which one answers by default, which ones
/// `Prefer: code=NNN` selects, and the media type each one is written in.
package enum DocumentedResponses {
    package struct Arrangement {
        /// What the default stub answers; nil when the operation documents no responses.
        package var primary: DocumentedResponse?
        /// Every other response, by status, each with a status of its own.
        package var others: [DocumentedResponse] = []
    }

    /// The default stub answers with the lowest 2xx (an explicit one, else `2XX` as 200); else
    /// `default` as 200; else the lowest status documented. The others answer `Prefer: code=`
    /// with their status: a range `4XX` as 400 and `default` as 500, unless that status is
    /// documented itself (it wins).
    package static func arrange(
        _ operation: OpenAPIOperation,
        _ documents: DocumentSet,
        notes: inout [ImportProblem]
    ) -> Arrangement {
        var exact: [DocumentedResponse] = []
        var ranges: [DocumentedResponse] = []
        var fallback: LocatedNode?
        for (key, raw) in operation.node["responses"]?.members ?? [] where !key.hasPrefix("x-") {
            let upper = key.uppercased()
            let digits = Array(upper.utf8)
            let isStatus = digits.count == 3 && digits.allSatisfy { (48...57).contains($0) }
            let isRange = digits.count == 3 && (49...53).contains(digits[0]) && upper.hasSuffix("XX")
            guard key == "default" || isStatus || isRange else {
                documents.report(
                    .warning,
                    "response key \"\(key)\" of \(operation.title) is not a status, a range (4XX) or default; skipped",
                    at: raw
                )
                continue
            }
            guard let response = documents.dereference(raw), response.isObject else { continue }
            if key == "default" {
                fallback = response
                continue
            }
            let status = isStatus ? Int(key) ?? 0 : Int(digits[0] - 48) * 100
            guard status >= 200, status <= 599 else {
                notes.append(
                    ImportProblem(
                        .note,
                        file: documents.displayName(of: raw.location),
                        position: raw.node.position,
                        message:
                            """
                            response \(key) of \(operation.title) skipped: a stub answers with a final status \
                            (200 to 599) (at \(raw.location))
                            """
                    )
                )
                continue
            }
            let documented = DocumentedResponse(key: key, status: status, node: response)
            if isStatus { exact.append(documented) } else { ranges.append(documented) }
        }
        let taken = Set(exact.map(\.status))
        var candidates = exact + ranges.filter { !taken.contains($0.status) }
        candidates.sort { $0.status < $1.status || ($0.status == $1.status && $0.key < $1.key) }
        var arrangement = Arrangement()
        if let success = candidates.first(where: { (200...299).contains($0.status) }) {
            arrangement.primary = success
        } else if let fallback {
            arrangement.primary = DocumentedResponse(key: "default", status: 200, node: fallback)
        } else {
            arrangement.primary = candidates.first
        }
        arrangement.others = candidates.filter { $0.key != arrangement.primary?.key }
        if let fallback, arrangement.primary?.key != "default", !candidates.contains(where: { $0.status == 500 }) {
            arrangement.others.append(DocumentedResponse(key: "default", status: 500, node: fallback))
        }
        return arrangement
    }

    /// The keys of a `responses` object that document responses (extensions left out).
    package static func keys(of responses: LocatedNode) -> [String] {
        (responses.members ?? []).map(\.key).filter { !$0.hasPrefix("x-") }
    }

    /// The response that documents `status`: its own key, else its range (`4XX`), else
    /// `default`; nil when none does (or its `$ref` does not resolve).
    package static func documented(
        status: Int,
        in responses: LocatedNode,
        _ documents: DocumentSet
    ) -> (key: String, node: LocatedNode)? {
        let keys = keys(of: responses)
        let code = String(status)
        let key =
            keys.first { $0 == code }
            ?? keys.first { $0.count == 3 && $0.uppercased().hasSuffix("XX") && $0.first == code.first }
            ?? keys.first { $0 == "default" }
        guard let key, let node = responses[key].flatMap({ documents.dereference($0) }) else { return nil }
        return (key, node)
    }

    /// The media type a stub is written in: `application/json`, else another JSON type, else
    /// the first listed. nil when the response documents no content.
    package static func preferredContent(_ response: LocatedNode) -> (mediaType: String, node: LocatedNode)? {
        let entries = (response["content"]?.members ?? []).filter { $0.value.isObject }
        let chosen =
            entries.first { MediaTypes.essence($0.key) == "application/json" }
            ?? entries.first { MediaTypes.isJSON($0.key) }
            ?? entries.first
        return chosen.map { ($0.key, $0.value) }
    }
}
