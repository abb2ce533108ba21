import HTTP1
import JSON
import StubEngine

/// A documented response written as a stub's `response`: status, the documented headers with
/// example values, and the body in the form the loader serves as that media type.
enum ResponseBody {
    /// The loader's default Content-Types: written only when the media type differs from them.
    static let defaultJSON = "application/json"
    static let defaultText = "text/plain; charset=utf-8"

    struct Rendered {
        var body: JSONNode?
        var contentType: String?
        /// Why a value could not be written as the media type, if it could not.
        var problem: String?
    }

    /// JSON media types get the value as JSON (a string value as a JSON string literal, since a
    /// stub's string body is sent as is); other types get text, so only a string, number or
    /// boolean value can be written. A wildcard type (`*/*`) becomes JSON or text by the value.
    /// A `text/event-stream` example as stub events: a text example written as a stream
    /// (`data:` lines, blank lines between events) becomes its events; any other value is the
    /// data of one event.
    static func events(from value: JSONNode?) -> JSONNode {
        guard let value else { return .array([.object([("comment", .string("the document has no example"))])]) }
        if let text = value.string, text.contains("data:") {
            let blocks = ServerSentEventSplitter.blocks(of: Array(text.utf8))
            let events: [JSONNode] = blocks.compactMap { block in
                var fields: [(String, JSONNode)] = []
                if let event = block.event { fields.append(("event", .string(event))) }
                if let id = block.id { fields.append(("id", .string(id))) }
                if let data = block.data { fields.append(("data", .string(data))) }
                if !block.comments.isEmpty, block.data == nil {
                    fields.append(("comment", .string(block.comments.joined(separator: "\n"))))
                }
                if let retry = block.retry { fields.append(("retry", .number(retry))) }
                return fields.contains { $0.0 == "data" || $0.0 == "comment" } ? .object(fields) : nil
            }
            if !events.isEmpty { return .array(events) }
        }
        return .array([.object([("data", value)])])
    }

    static func render(_ value: JSONNode?, mediaType: String) -> Rendered {
        guard let value else {
            return Rendered(body: nil, contentType: MediaTypes.isWildcard(mediaType) ? nil : mediaType)
        }
        let isString = value.string != nil
        if MediaTypes.isJSON(mediaType) || (MediaTypes.isWildcard(mediaType) && !isString) {
            let type = MediaTypes.isWildcard(mediaType) ? defaultJSON : mediaType
            let body = isString ? JSONNode.string(JSONSerializer.string(value)) : value
            return Rendered(body: body, contentType: type == defaultJSON && !isString ? nil : type)
        }
        let type = MediaTypes.isWildcard(mediaType) ? defaultText : mediaType
        let contentType = type == defaultText ? nil : type
        switch value.value {
        case .string(let s): return Rendered(body: .string(s), contentType: contentType)
        case .number(let n): return Rendered(body: .string(n.text), contentType: contentType)
        case .bool(let b): return Rendered(body: .string(b ? "true" : "false"), contentType: contentType)
        case .null: return Rendered(body: nil, contentType: contentType)
        case .array, .object:
            return Rendered(
                body: nil,
                contentType: type,
                problem:
                    """
                    its example is structured data, which cannot be written as \
                    \(MediaTypes.essence(mediaType)); the stub has no body
                    """
            )
        }
    }

    /// A header's example value as text: a string as is, numbers and booleans as written, an
    /// array of those joined with commas (OpenAPI's `simple` style); nil for anything else.
    static func headerText(_ value: JSONNode) -> String? {
        let text: String?
        switch value.value {
        case .string(let s): text = s
        case .number(let n): text = n.text
        case .bool(let b): text = b ? "true" : "false"
        case .array(let elements):
            let parts = elements.compactMap { element -> String? in
                element.elements == nil && element.members == nil ? headerText(element) : nil
            }
            text = parts.count == elements.count ? parts.joined(separator: ",") : nil
        default: text = nil
        }
        guard let text, !text.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            return nil
        }
        return text
    }
}
