#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import SystemSupport

/// One `{{...}}` of a response template, resolved at load: rendering never re-parses.
enum TemplateVariable: Sendable, Equatable {
    case method
    case path
    case pathParameter(String)
    case query(String)
    case header(String)
    case body
    case json(pointer: JSONPointer)
    case baseURL
    /// The answer's clock reading (one per answer), plus the offset.
    case now(offsetSeconds: Int)
    /// `name`: one value per answer for that name (`{{uuid 'order'}}`); nil: fresh every time.
    case uuid(name: String?)
    case randomInt(min: Int, max: Int, name: String?)
    /// A WebSocket message, in a rule's reply: its text, or a JSON pointer into it.
    case messageText
    case messageJSON(pointer: JSONPointer)
    /// `{{json VARIABLE}}`: the value as JSON (a number as a number, a string quoted and
    /// escaped, an absent value as `null`) rather than as text.
    indirect case asJSON(TemplateVariable)

    static let catalogue =
        """
        request.method, request.path, request.path.NAME, request.query.NAME, request.headers.NAME, \
        request.body, request.json./POINTER, request.baseUrl, now, now +3d, uuid, uuid 'NAME', \
        randomInt MIN MAX, randomInt MIN MAX 'NAME', json VARIABLE
        """

    /// The name a random variable is kept under for the rest of the answer, and what it is
    /// (two uses of one name must agree on it); nil for every other variable.
    var answerName: (name: String, definition: String)? {
        switch self {
        case .uuid(let name?): return (name, "uuid")
        case .randomInt(let lo, let hi, let name?): return (name, "randomInt \(lo) \(hi)")
        case .asJSON(let inner): return inner.answerName
        default: return nil
        }
    }

    /// Parses the text between `{{` and `}}`. `pathParameters` are the stub's `{name}`s, so a
    /// misspelt capture is a load error rather than an empty string at run time.
    static func parse(
        _ raw: String,
        pathParameters: Set<String>?,
        allowsMessage: Bool = false
    ) -> Result<TemplateVariable, TemplateError> {
        let text = raw.trimmingSpaces()
        if text == "message.text" || text == "message.json" || text.hasPrefix("message.json.") {
            return parseMessage(text, allowed: allowsMessage)
        }
        switch text {
        case "request.method": return .success(.method)
        case "request.path": return .success(.path)
        case "request.body": return .success(.body)
        case "request.baseUrl": return .success(.baseURL)
        case "uuid": return .success(.uuid(name: nil))
        case "now": return .success(.now(offsetSeconds: 0))
        default: break
        }
        if text.hasPrefix("request.path.") {
            let name = String(text.dropFirst("request.path.".count))
            if let pathParameters, !pathParameters.contains(name) {
                let known =
                    pathParameters.isEmpty
                    ? "the stub's path has no {name} segments"
                    : "the path captures " + pathParameters.sorted().map { "{\($0)}" }.joined(separator: ", ")
                return .failure(TemplateError("{{\(text)}}: no {\(name)} in the request path (\(known))"))
            }
            return .success(.pathParameter(name))
        }
        if text.hasPrefix("request.query.") {
            let name = String(text.dropFirst("request.query.".count))
            return name.isEmpty
                ? .failure(TemplateError("{{\(text)}}: name the query parameter, as in request.query.page"))
                : .success(.query(name))
        }
        if text.hasPrefix("request.headers.") {
            let name = String(text.dropFirst("request.headers.".count))
            return name.isEmpty
                ? .failure(TemplateError("{{\(text)}}: name the header, as in request.headers.User-Agent"))
                : .success(.header(name))
        }
        if text.hasPrefix("request.json.") || text == "request.json" {
            let pointer = String(text.dropFirst("request.json".count).drop { $0 == "." })
            guard pointer.isEmpty || pointer.hasPrefix("/") else {
                return .failure(
                    TemplateError("{{\(text)}}: a JSON pointer starts with '/', as in request.json./user/name")
                )
            }
            guard let parsed = JSONPointer(pointer) else {
                let bad = JSONPointer.badEscape(in: pointer).map { String(pointer[$0]) } ?? pointer
                return .failure(
                    TemplateError("{{\(text)}}: '\(bad)' in a JSON pointer; write ~0 for '~' and ~1 for '/'")
                )
            }
            return .success(.json(pointer: parsed))
        }
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        if words.first == "json" {
            return parseJSON(text, words: words, pathParameters: pathParameters, allowsMessage: allowsMessage)
        }
        if words.first == "uuid", words.count == 2 {
            return parseName(words[1], in: text).map { .uuid(name: $0) }
        }
        if words.first == "now", words.count == 2 {
            guard let offset = parseOffset(words[1]) else {
                return .failure(
                    TemplateError(
                        """
                        {{\(text)}}: an offset is a sign, a number and a unit s, m, h or d, as in now +3d or \
                        now -90m, of at most 100 years (36600d)
                        """
                    )
                )
            }
            return .success(.now(offsetSeconds: offset))
        }
        if words.first == "randomInt" {
            guard words.count == 3 || words.count == 4, let lo = Int(words[1]), let hi = Int(words[2]), lo <= hi
            else {
                return .failure(
                    TemplateError(
                        "{{\(text)}}: write randomInt MIN MAX with whole numbers, MIN <= MAX, and maybe a name: "
                            + "randomInt 1 100 'quantity'"
                    )
                )
            }
            guard words.count == 4 else { return .success(.randomInt(min: lo, max: hi, name: nil)) }
            return parseName(words[3], in: text).map { .randomInt(min: lo, max: hi, name: $0) }
        }
        var message = "{{\(text)}}: unknown variable"
        let names = [
            "request.method", "request.path", "request.body", "request.baseUrl", "uuid", "now", "randomInt", "json",
        ]
        if let near = Suggestion.closest(to: text, among: names) { message += "; did you mean \(near)?" }
        return .failure(TemplateError(message + " (known: \(catalogue))"))
    }

    /// The largest offset `now` takes: 100 years either way. Far enough for any expiry date an
    /// app tests; bounded so the arithmetic at load and at render time cannot overflow (an
    /// offset of 106751991167301d once trapped the whole server).
    static let maximumOffsetSeconds = 100 * 366 * 86_400

    /// `message.text`, `message.json./POINTER`: only in a WebSocket rule's reply, where there
    /// is a message.
    private static func parseMessage(_ text: String, allowed: Bool) -> Result<TemplateVariable, TemplateError> {
        guard allowed else {
            return .failure(TemplateError("{{\(text)}}: the message is known only in a WebSocket rule's reply"))
        }
        if text == "message.text" { return .success(.messageText) }
        let pointer = String(text.dropFirst("message.json".count).drop { $0 == "." })
        guard pointer.isEmpty || pointer.hasPrefix("/") else {
            return .failure(TemplateError("{{\(text)}}: a JSON pointer starts with '/', as in message.json./text"))
        }
        guard let parsed = JSONPointer(pointer) else {
            let bad = JSONPointer.badEscape(in: pointer).map { String(pointer[$0]) } ?? pointer
            return .failure(TemplateError("{{\(text)}}: '\(bad)' in a JSON pointer; write ~0 for '~' and ~1 for '/'"))
        }
        return .success(.messageJSON(pointer: parsed))
    }

    /// `json VARIABLE`: any other variable, as JSON.
    private static func parseJSON(
        _ text: String,
        words: [Substring],
        pathParameters: Set<String>?,
        allowsMessage: Bool
    ) -> Result<TemplateVariable, TemplateError> {
        guard words.count > 1 else {
            return .failure(TemplateError("{{\(text)}}: name the value, as in json request.json./quantity"))
        }
        let inner = String(text.dropFirst("json".count))
        switch parse(inner, pathParameters: pathParameters, allowsMessage: allowsMessage) {
        case .success(.asJSON):
            return .failure(TemplateError("{{\(text)}}: one json is enough, as in json request.json./quantity"))
        case .success(let variable):
            return .success(.asJSON(variable))
        case .failure(let error):
            return .failure(error)
        }
    }

    /// A name for the rest of the answer: `'order'`, `"order"` or `order`; letters, digits,
    /// `-`, `_` and `.`.
    private static func parseName(_ word: Substring, in text: String) -> Result<String, TemplateError> {
        var name = word
        if let quote = name.first, quote == "'" || quote == "\"" {
            guard name.count >= 2, name.last == quote else {
                return .failure(TemplateError("{{\(text)}}: the name \(word) has no closing \(quote)"))
            }
            name = name.dropFirst().dropLast()
        }
        let allowed = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || "-_.".unicodeScalars.contains($0)
        }
        guard !name.isEmpty, allowed else {
            return .failure(
                TemplateError(
                    "{{\(text)}}: a name is letters, digits, '-', '_' and '.', as in uuid 'order'"
                )
            )
        }
        return .success(String(name))
    }

    private static func parseOffset(_ word: Substring) -> Int? {
        guard let sign = word.first, sign == "+" || sign == "-", let unit = word.last else { return nil }
        let digits = word.dropFirst().dropLast()
        guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let amount = Int(digits)
        else { return nil }
        let scale: Int
        switch unit {
        case "s": scale = 1
        case "m": scale = 60
        case "h": scale = 3600
        case "d": scale = 86_400
        default: return nil
        }
        let (seconds, overflow) = amount.multipliedReportingOverflow(by: scale)
        guard !overflow, seconds <= maximumOffsetSeconds else { return nil }
        return sign == "-" ? -seconds : seconds
    }
}

package struct TemplateError: Error, Equatable {
    package let message: String
    init(_ message: String) { self.message = message }
}
