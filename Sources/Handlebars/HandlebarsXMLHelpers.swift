import XML

/// `xPath`: the request body (or any XML text) read with the XML reader, the compiled
/// expression applied. One text or attribute writes as its value, one element as its XML;
/// several are a list of nodes (`name`, `text`, `attributes`), as WireMock's helper returns.
/// A body that is not XML gives nothing.
enum HandlebarsXMLHelpers {
    static func evaluate(
        _ path: XPathExpression,
        _ source: HandlebarsValue,
        _ r: inout HandlebarsRenderer
    ) -> HandlebarsValue {
        guard let root = try? XMLReader.parse(source.text) else { return .string("") }
        let items = path.evaluate(root, limit: min(10_000, max(1, r.remainingSteps)))
        r.charge(items.count)
        switch items.count {
        case 0: return .string("")
        case 1: return value(items[0])
        default: return .list(items.map(value))
        }
    }

    /// `formatXml`: pretty (four spaces a level, as WireMock's example) or compact.
    static func format(_ value: HandlebarsValue, compact: Bool, _ r: inout HandlebarsRenderer) -> HandlebarsValue {
        let text = value.text
        r.charge(text.utf8.count / 64)
        guard let root = try? XMLReader.parse(text) else {
            return HandlebarsJSONHelpers.error("Input is not valid XML")
        }
        return .string(root.rewritten(indentWidth: compact ? nil : 4))
    }

    private static func value(_ item: XPathExpression.Item) -> HandlebarsValue {
        switch item {
        case .text(let text): return .string(text)
        case .attribute(_, let value): return .string(value)
        case .element(let element): return .object(XMLNodeModel(element: element))
        }
    }
}

/// An element in a template: writes as its XML; `name`, `text` and `attributes.x` as members.
struct XMLNodeModel: HandlebarsObject {
    let element: XMLElementNode

    var text: String { element.xml }

    func member(_ name: String) -> HandlebarsValue {
        switch name {
        case "name": return .string(element.localName)
        case "text": return .string(element.textContent)
        case "attributes": return .object(XMLAttributesModel(element: element))
        default: return .null
        }
    }
}

struct XMLAttributesModel: HandlebarsObject {
    let element: XMLElementNode

    var text: String { "{" + element.attributes.map { "\($0.name)=\($0.value)" }.joined(separator: ", ") + "}" }

    func member(_ name: String) -> HandlebarsValue { element.attribute(name).map { .string($0) } ?? .null }
}
