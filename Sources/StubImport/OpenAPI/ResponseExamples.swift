import HTTP1
import JSON
import JSONSchema
import StubEngine

/// The examples a media type gives: its `example`, and its named `examples` (Example Objects,
/// `$ref`'d ones resolved, and `$ref`s inside their values: `DocumentSet.exampleValue`). An
/// example with only an `externalValue` is skipped with a note: it
/// lives at a URL, and an import does not fetch.
package struct ResponseExamples {
    /// The media type's `example`, else the first named example's value.
    package var first: JSONNode?
    package var named: [(name: String, value: JSONNode)] = []

    package init(media: LocatedNode, documents: DocumentSet, notes: inout [ImportProblem]) {
        for (name, raw) in media["examples"]?.members ?? [] {
            guard let example = documents.dereference(raw), example.isObject else { continue }
            if let value = example["value"] {
                guard let resolved = documents.exampleValue(value) else { continue }
                named.append((name, resolved))
            } else if let external = example["externalValue"] {
                notes.append(
                    ImportProblem(
                        .note,
                        file: documents.displayName(of: external.location),
                        position: external.node.position,
                        message:
                            """
                            example \"\(name)\" skipped: its value is at \(SchemaWording.value(external.node)) \
                            (externalValue), and an import does not fetch; put the value in the document to use it \
                            (at \(external.location))
                            """
                    )
                )
            }
        }
        first = media["example"].flatMap { documents.exampleValue($0) } ?? named.first?.value
    }
}

/// `Prefer` header conditions in the convention Prism's users have: `Prefer: code=404` picks a
/// status, `Prefer: example=notFound` a named example, both together both. The header may list
/// other preferences before or after (`Prefer: respond-async, code=404; x=1`); names are
/// matched in any case, values as written, with or without quotes.
package enum PreferCondition {
    /// A whole-value regular expression for a Prefer header that asks for this status.
    package static func code(_ status: Int) -> String {
        preference("code", String(status))
    }

    package static func example(_ name: String) -> String {
        preference("example", name)
    }

    /// Any `code=` or `example=` preference: an ask no more specific stub met.
    package static let anyCodeOrExample = "(?:.*[,;])?\\s*(?i:code|example)\\s*=.*"
    /// Any `code=` preference.
    package static let anyCode = "(?:.*[,;])?\\s*(?i:code)\\s*=.*"
    /// Any `example=` preference.
    package static let anyExample = "(?:.*[,;])?\\s*(?i:example)\\s*=.*"

    /// The response header that says which preferences chose the answer (RFC 7240).
    package static let appliedHeader = "Preference-Applied"

    /// The `Preference-Applied` value: `code=NNN`, `example=NAME` (quoted unless NAME is a
    /// token), or both.
    package static func applied(code: Int? = nil, example name: String? = nil) -> String {
        var items: [String] = []
        if let code { items.append("code=\(code)") }
        if let name { items.append(HTTPToken.isToken(name) ? "example=\(name)" : "example=\"\(name)\"") }
        return items.joined(separator: ", ")
    }

    /// Both, in either order: two alternatives rather than a look-ahead, because stub regexes
    /// run in linear time and refuse look-around.
    package static func code(_ status: Int, example name: String) -> String {
        let code = item("code", String(status))
        let example = item("example", name)
        return "(?:\(both(code, example))|\(both(example, code)))"
    }

    /// `name=value` as one preference of the list: at the start or after `,` or `;`, and
    /// followed by the end or by `,` or `;`, so `xcode=404` and `code=4040` do not count.
    static func preference(_ name: String, _ value: String) -> String {
        "(?:.*[,;])?" + item(name, value) + "(?:[,;].*)?"
    }

    /// `first` and later `second`, each a whole item of the list.
    private static func both(_ first: String, _ second: String) -> String {
        "(?:.*[,;])?" + first + "[,;](?:.*[,;])?" + second + "(?:[,;].*)?"
    }

    /// One preference, spaces around it allowed; the name in any case, the value quoted or not.
    private static func item(_ name: String, _ value: String) -> String {
        let escaped = PathTemplate.escapeRegex(value)
        return "\\s*(?i:\(name))\\s*=\\s*(?:\(escaped)|\"\(escaped)\")\\s*"
    }
}
