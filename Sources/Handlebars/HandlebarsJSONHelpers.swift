#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import JSONPath

/// WireMock's JSON helpers (`formatJson`, `toJson`, `parseJson`, `jsonMerge`, `jsonRemove`,
/// `jsonArrayAdd`) over the JSON parser, serializer and pretty printer. Their results are text
/// (compact JSON, as WireMock's `writeValueAsString`), so they can be assigned and passed on;
/// input that is not the JSON a helper needs renders WireMock's `[ERROR: ...]` text.
enum HandlebarsJSONHelpers {
    static func evaluate(
        _ call: HandlebarsCall,
        _ args: [HandlebarsValue],
        _ hash: (String) -> HandlebarsValue?,
        _ r: inout HandlebarsRenderer
    ) -> HandlebarsValue {
        switch call.helper {
        case .formatJson:
            return format(args[0], compact: hash("format")?.text == "compact", &r)
        case .toJson:
            return .string(JSONPrettyPrinter.jacksonString(node(of: args[0])))
        case .parseJson:
            guard let parsed = parse(args[0], &r) else { return error("Input is not valid JSON") }
            if args.count > 1 {
                r.variables[args[1].text] = HandlebarsValue(json: parsed)
                return .string("")
            }
            return HandlebarsValue(json: parsed)
        case .jsonMerge:
            guard args.count > 1 else { return error("JSON to merge must be a string") }
            return merge(args[0], args[1], removeNulls: hash("removeNulls")?.isTruthy == true, &r)
        case .jsonRemove:
            guard case .jsonPath(let path)? = call.compiled else { return .null }
            return remove(args[0], path, &r)
        case .jsonArrayAdd:
            guard args.count > 1 else { return error("Item to add must be JSON") }
            return arrayAdd(args[0], args[1], call, hash, &r)
        default:
            return .null
        }
    }

    /// `formatJson`: pretty (Jackson's default printer, as WireMock writes) or compact.
    static func format(_ value: HandlebarsValue, compact: Bool, _ r: inout HandlebarsRenderer) -> HandlebarsValue {
        guard let parsed = parse(value, &r) else { return error("Input is not valid JSON") }
        return .string(compact ? JSONSerializer.string(parsed) : JSONPrettyPrinter.jacksonString(parsed))
    }

    static func merge(
        _ base: HandlebarsValue,
        _ other: HandlebarsValue,
        removeNulls: Bool,
        _ r: inout HandlebarsRenderer
    ) -> HandlebarsValue {
        guard let baseNode = parse(base, &r) else { return error("Base JSON is not valid JSON ('\(base.text)')") }
        guard let baseMembers = baseNode.members else {
            return error("Base JSON is not a JSON object ('\(base.text)')")
        }
        guard let otherNode = parse(other, &r) else {
            return error("JSON to merge is not valid JSON ('\(other.text)')")
        }
        guard let otherMembers = otherNode.members else {
            return error("JSON to merge is not a JSON object ('\(other.text)')")
        }
        return .string(JSONSerializer.string(JSONNode(.object(merged(baseMembers, otherMembers, removeNulls)))))
    }

    /// Objects merge key by key, recursively; anything else in `other` replaces (arrays too).
    private static func merged(
        _ base: [JSONNode.Member],
        _ other: [JSONNode.Member],
        _ removeNulls: Bool
    ) -> [JSONNode.Member] {
        var result = base
        for member in other {
            let index = result.firstIndex { $0.key == member.key }
            if removeNulls, case .null = member.value.value {
                if let index { result.remove(at: index) }
                continue
            }
            var value = member.value
            if let index, let inner = result[index].value.members, let innerOther = member.value.members {
                value = JSONNode(.object(merged(inner, innerOther, removeNulls)))
            }
            let replacement = JSONNode.Member(key: member.key, keyPosition: member.keyPosition, value: value)
            if let index { result[index] = replacement } else { result.append(replacement) }
        }
        return result
    }

    /// `jsonRemove`: every value the path selects, removed from its object or array. A parsed
    /// document gives each value its own source position, which identifies what to remove.
    static func remove(_ value: HandlebarsValue, _ path: JSONPath, _ r: inout HandlebarsRenderer) -> HandlebarsValue {
        guard let document = parse(value, &r) else { return error("Input is not valid JSON") }
        let selected = select(path, document, &r)
        guard !selected.isEmpty else { return .string(JSONSerializer.string(document)) }
        let positions = Set(selected.map { PositionKey($0.position) })
        return .string(
            JSONSerializer.string(
                rebuilt(document, &r) { child in
                    positions.contains(PositionKey(child.position)) ? nil : child
                }
            )
        )
    }

    static func arrayAdd(
        _ array: HandlebarsValue,
        _ item: HandlebarsValue,
        _ call: HandlebarsCall,
        _ hash: (String) -> HandlebarsValue?,
        _ r: inout HandlebarsRenderer
    ) -> HandlebarsValue {
        guard let document = parse(array, &r) else { return error("Target JSON is not valid JSON ('\(array.text)')") }
        guard let itemNode = parse(item, &r) else { return error("Item to add is not valid JSON ('\(item.text)')") }
        let maxItems = hash("maxItems")?.integer
        let flatten = hash("flatten")?.isTruthy == true
        let append: (JSONNode) -> JSONNode = { target in
            var elements = target.elements ?? []
            if flatten, let inner = itemNode.elements { elements += inner } else { elements.append(itemNode) }
            if let maxItems, maxItems >= 0, elements.count > maxItems {
                elements.removeFirst(elements.count - maxItems)
            }
            return JSONNode(.array(elements), at: target.position)
        }
        if case .jsonPath(let path)? = call.compiled {
            guard let target = select(path, document, &r).first, target.elements != nil else {
                return error("jsonPath does not select an array in the target JSON")
            }
            let key = PositionKey(target.position)
            if PositionKey(document.position) == key { return .string(JSONSerializer.string(append(document))) }
            let result = rebuilt(document, &r) { PositionKey($0.position) == key ? append($0) : $0 }
            return .string(JSONSerializer.string(result))
        }
        guard document.elements != nil else { return error("Target JSON is not a JSON array ('\(array.text)')") }
        return .string(JSONSerializer.string(append(document)))
    }

    /// A template value as JSON (`toJson`): lists become arrays, text a JSON string.
    static func node(of value: HandlebarsValue) -> JSONNode {
        switch value {
        case .null: return JSONNode(.null)
        case .string(let s): return JSONNode(.string(s))
        case .number(let n, let text): return JSONNode(.number(JSONNumber(text: text, value: n)))
        case .bool(let b): return JSONNode(.bool(b))
        case .json(let node): return node
        case .list(let items): return JSONNode(.array(items.map(node(of:))))
        case .object(let object):
            if let elements = object.elements { return JSONNode(.array(elements.map(node(of:)))) }
            return JSONNode(.string(object.text))
        }
    }

    /// The value parsed from its JSON text. JSON values and lists are written and read again,
    /// so every value has its own source position (what `jsonRemove` identifies values by).
    private static func parse(_ value: HandlebarsValue, _ r: inout HandlebarsRenderer) -> JSONNode? {
        let text: String
        switch value {
        case .json, .list: text = JSONSerializer.string(node(of: value))
        default: text = value.text
        }
        r.charge(text.utf8.count / 64)
        return try? JSONParser.parse(text)
    }

    private static func select(_ path: JSONPath, _ document: JSONNode, _ r: inout HandlebarsRenderer) -> [JSONNode] {
        var visits = 0
        let result = path.evaluate(document, budget: min(JSONPath.defaultBudget, r.remainingSteps), visits: &visits)
        r.charge(visits)
        switch result {
        case .missing: return []
        case .value(let node): return [node]
        case .list(let nodes): return nodes
        }
    }

    /// The document with every value below the root passed through `change` (nil drops it).
    private static func rebuilt(
        _ node: JSONNode,
        _ r: inout HandlebarsRenderer,
        _ change: (JSONNode) -> JSONNode?
    ) -> JSONNode {
        r.charge(1)
        switch node.value {
        case .array(let elements):
            let kept = elements.compactMap { change($0) }.map { rebuilt($0, &r, change) }
            return JSONNode(.array(kept), at: node.position)
        case .object(let members):
            let kept = members.compactMap { member -> JSONNode.Member? in
                guard let value = change(member.value) else { return nil }
                return JSONNode.Member(key: member.key, keyPosition: member.keyPosition, value: value)
            }
            let deep = kept.map { member in
                let value = rebuilt(member.value, &r, change)
                return JSONNode.Member(key: member.key, keyPosition: member.keyPosition, value: value)
            }
            return JSONNode(.object(deep), at: node.position)
        default:
            return node
        }
    }

    /// WireMock's helper error text (`HandlebarsHelper.handleError`).
    static func error(_ message: String) -> HandlebarsValue { .string("[ERROR: \(message)]") }
}

/// A source position as a set member (each parsed value starts at its own position).
private struct PositionKey: Hashable {
    let line: Int
    let column: Int
    init(_ position: SourcePosition) {
        line = position.line
        column = position.column
    }
}
