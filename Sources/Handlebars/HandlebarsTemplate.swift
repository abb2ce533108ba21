import JSONPath
import RegularExpressions
import XML
/// A Handlebars template (the subset WireMock's response templating uses), compiled at load:
/// the text is parsed once into nodes, helper names are checked, literal JSONPath expressions
/// and regular expressions are compiled; rendering walks the nodes and never parses.
///
/// Supported: `{{path}}` (HTML-escaped, as Handlebars does), `{{{path}}}` and `{{& path}}`
/// (raw), `{{helper arg key=value}}`, subexpressions `(helper ...)`, blocks `{{#name}}...
/// {{else}}...{{/name}}` (and `{{else if ...}}`), block parameters `as |item index|`,
/// comments, whitespace control (`{{~`, `~}}`) and standalone lines. The helpers are in
/// `HandlebarsHelpers`; any other name is reported at load (`warnings`) and its tag is
/// rendered as written.
package struct HandlebarsTemplate: Sendable {
    let nodes: [HandlebarsNode]
    /// As written, for messages and the admin API.
    package let source: String
    /// Unknown helpers, unsupported tags: each names the helper or the tag.
    package let warnings: [String]

    /// Whether the text has any tag at all: text without `{{` needs no template.
    package static func hasTags(_ text: String) -> Bool { text.contains("{{") }

    /// Parses and checks `text`. `knownRoots` are the names a path may start with outside
    /// `#each` and `#with` (`request`, `parameters`); a path starting with another name is a
    /// warning, since it renders as nothing.
    package init(_ text: String, knownRoots: Set<String>) throws(HandlebarsError) {
        var parser = HandlebarsParser(text, knownRoots: knownRoots)
        nodes = try parser.parseDocument()
        source = text
        warnings = parser.warnings
    }
}

/// A template that does not parse: why, and where (character offset in the template).
package struct HandlebarsError: Error, Sendable, Equatable, CustomStringConvertible {
    package let message: String
    package let offset: Int
    package var description: String { "\(message) (at character \(offset) of the template)" }
}

indirect enum HandlebarsNode: Sendable {
    case text(String)
    /// `{{expr}}`; `escaped` unless written `{{{...}}}` or `{{& ...}}`.
    case value(HandlebarsExpression, escaped: Bool)
    case block(HandlebarsBlock)
    /// A tag that cannot be rendered (unknown helper, partial): written out as it was.
    case verbatim(String)
}

struct HandlebarsBlock: Sendable {
    let helper: HandlebarsHelper
    let params: [HandlebarsExpression]
    let hash: [(String, HandlebarsExpression)]
    let blockParams: [String]
    let body: [HandlebarsNode]
    let inverse: [HandlebarsNode]
    /// `matches`'s pattern, compiled at load.
    var compiled: HandlebarsCompiledArgument? = nil
}

indirect enum HandlebarsExpression: Sendable {
    case path(HandlebarsPath)
    case literal(HandlebarsValue)
    case call(HandlebarsCall)
}

/// A helper invocation with what could be prepared at load.
struct HandlebarsCall: Sendable {
    let helper: HandlebarsHelper
    let params: [HandlebarsExpression]
    let hash: [(String, HandlebarsExpression)]
    /// `jsonPath`'s expression or `regexExtract`'s pattern, compiled at load.
    let compiled: HandlebarsCompiledArgument?

    func hashValue(_ key: String) -> HandlebarsExpression? { hash.first { $0.0 == key }?.1 }
}

enum HandlebarsCompiledArgument: Sendable {
    case jsonPath(JSONPath)
    case regex(CompiledRegex)
    case date(DateSettings)
    case xPath(XPathExpression)
    case random(RandomValueKind, length: Int, uppercase: Bool)
    case truncation(DateTruncation)
    case systemValue(SystemValue)
}

/// `request.path.[1]`, `this`, `../name`, `@index`, `item.name`.
struct HandlebarsPath: Sendable, Equatable {
    /// How many `../` lead it: contexts to go up before looking.
    var parents = 0
    /// `@index`, `@key`, `@first`, `@last`, `@root`.
    var isData = false
    /// Segments after `this` (an empty list is `this` itself).
    var segments: [String]
    var text: String
}

extension HandlebarsTemplate {
    /// A template's parts when it is only text and single tags (no blocks): what a converter to
    /// another template language can take. Paths as written; helper calls with their literal
    /// arguments. nil when there is a block, a subexpression or an argument that is not literal.
    package enum Piece: Sendable, Equatable {
        case text(String)
        case path(String, escaped: Bool)
        case call(String, params: [String], hash: [String: String], escaped: Bool)
    }

    package var flatPieces: [Piece]? {
        var pieces: [Piece] = []
        func literal(_ e: HandlebarsExpression) -> String? {
            if case .literal(let value) = e { return value.text }
            return nil
        }
        for node in nodes {
            switch node {
            case .text(let s): pieces.append(.text(s))
            case .verbatim, .block: return nil
            case .value(.literal(let value), _): pieces.append(.text(value.text))
            case .value(.path(let path), let escaped): pieces.append(.path(path.text, escaped: escaped))
            case .value(.call(let call), let escaped):
                let params = call.params.compactMap(literal)
                var hash: [String: String] = [:]
                for (key, value) in call.hash { hash[key] = literal(value) }
                guard params.count == call.params.count, hash.count == call.hash.count else { return nil }
                pieces.append(.call(call.helper.rawValue, params: params, hash: hash, escaped: escaped))
            }
        }
        return pieces
    }
}
