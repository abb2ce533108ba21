#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import JSONPath
import SystemSupport
import RegularExpressions
import XML

/// The helpers the subset knows (WireMock's documented ones and Handlebars.java's string and
/// conditional helpers that WireMock templates use). Any other name in a helper's place is a
/// load warning.
enum HandlebarsHelper: String, Sendable, CaseIterable {
    case `if`, unless, each, with
    case eq, ne, neq, gt, gte, lt, lte, and, or, not
    case jsonPath, regexExtract, xPath, now, date, parseDate, dateFormat
    case randomValue, randomInt, randomDecimal, pickRandom, range, size, lookup, array, math
    case contains, matches, val, assign, formData
    case upper, lower, capitalize, capitalizeFirst, trim, substring, replace, split, join, abbreviate
    case base64, urlEncode
    case formatJson, formatXml, toJson, parseJson, jsonMerge, jsonRemove, jsonArrayAdd
    case arrayAdd, arrayRemove, arrayJoin, soapXPath, hostname, truncateDate, systemValue

    /// May open a block (`{{#eq a b}}...{{/eq}}`).
    var isBlock: Bool {
        switch self {
        case .if, .unless, .each, .with, .eq, .ne, .neq, .gt, .gte, .lt, .lte, .and, .or, .not, .contains, .matches:
            true
        case .assign, .trim, .base64, .urlEncode, .upper, .lower, .capitalize: true
        case .formatJson, .formatXml, .parseJson, .jsonMerge, .jsonArrayAdd, .arrayJoin: true
        default: false
        }
    }

    /// Blocks whose body, rendered, is the helper's last argument (`{{#jsonMerge a}}{...}{{/jsonMerge}}`);
    /// `arrayJoin`'s body is rendered once for each element instead.
    var takesBodyAsArgument: Bool {
        switch self {
        case .formatJson, .formatXml, .parseJson, .jsonMerge, .jsonArrayAdd: true
        default: false
        }
    }

    /// Blocks whose body is rendered to text and handed to the helper (`{{#trim}} x {{/trim}}`).
    var takesBodyText: Bool {
        switch self {
        case .assign, .trim, .base64, .urlEncode, .upper, .lower, .capitalize: true
        default: false
        }
    }

    /// `{{now}}` alone is a call; `{{size}}` alone would be a variable.
    var needsArguments: Bool {
        switch self {
        case .now, .randomValue, .randomInt, .randomDecimal, .array, .hostname, .systemValue: false
        default: true
        }
    }
}

enum RandomValueKind: String, Sendable, CaseIterable {
    case ALPHANUMERIC, ALPHABETIC, NUMERIC, ALPHANUMERIC_AND_SYMBOLS, HEXADECIMAL, UUID
}

struct HandlebarsHelperError: Error { let message: String }

/// A call's arguments as `prepare` sees them at load: literals are known, the rest is not.
struct HandlebarsArguments {
    let helper: HandlebarsHelper
    let params: [HandlebarsExpression]
    let hash: [(String, HandlebarsExpression)]

    func hash(_ key: String) -> HandlebarsExpression? { hash.first { $0.0 == key }?.1 }

    /// The text of a literal argument; nil for a path or a call (known only when rendering).
    static func literal(_ e: HandlebarsExpression?) -> String? {
        if case .literal(.string(let s))? = e { return s }
        if case .literal(.number(_, let text))? = e { return text }
        if case .literal(.bool(let b))? = e { return b ? "true" : "false" }
        return nil
    }

    func need(_ count: Int, _ example: String) throws(HandlebarsHelperError) {
        guard params.count >= count else { throw HandlebarsHelperError(message: "\(helper.rawValue) takes \(example)") }
    }

    /// A hash value that must be written as a quoted string, so it can be compiled at load.
    func literalHash(_ key: String) throws(HandlebarsHelperError) -> String? {
        guard let expression = hash(key) else { return nil }
        guard let text = Self.literal(expression) else {
            throw HandlebarsHelperError(
                message: "\(helper.rawValue)'s \(key)= must be a quoted string (it is checked when the stub loads)"
            )
        }
        return text
    }
}

enum HandlebarsHelpers {
    /// Checks a call's arguments and compiles what can be compiled (a JSONPath, a regular
    /// expression, a date format, a time zone), so rendering never parses.
    static func prepare(
        _ helper: HandlebarsHelper,
        params: [HandlebarsExpression],
        hash: [(String, HandlebarsExpression)]
    ) throws(HandlebarsHelperError) -> HandlebarsCall {
        let a = HandlebarsArguments(helper: helper, params: params, hash: hash)
        var compiled: HandlebarsCompiledArgument?
        switch helper {
        case .if, .unless, .each, .with, .not, .size, .val, .assign, .date, .parseDate, .dateFormat:
            try a.need(1, "one value, as in {{\(helper.rawValue) request.query.debug}}")
        case .eq, .ne, .neq, .gt, .gte, .lt, .lte, .lookup, .range, .contains:
            try a.need(2, "two values, as in {{#\(helper.rawValue) request.method 'POST'}}")
        case .and, .or:
            try a.need(1, "one value or more")
        case .upper, .lower, .capitalize, .capitalizeFirst, .trim, .base64, .urlEncode, .split, .join:
            try a.need(1, "a value, as in {{\(helper.rawValue) request.query.name}}")
        case .substring, .abbreviate:
            try a.need(2, "a value and a number, as in {{\(helper.rawValue) request.body 3}}")
        case .replace:
            try a.need(3, "a value, the text to replace and its replacement, as in {{replace request.body 'a' 'b'}}")
        case .math:
            try a.need(3, "two numbers around an operator, as in {{math 1 '+' 2}}")
            if let op = HandlebarsArguments.literal(params[1]), !["+", "-", "*", "/", "%"].contains(op) {
                throw HandlebarsHelperError(message: "math's operator '\(op)' is not one of + - * / %")
            }
        case .formData:
            try a.need(2, "a form and a variable name, as in {{formData request.body 'form'}}")
            guard HandlebarsArguments.literal(params[1]) != nil else {
                throw HandlebarsHelperError(message: "formData's variable name must be a quoted string")
            }
        case .jsonPath:
            try a.need(2, "a JSON value and an expression, as in {{jsonPath request.body '$.name'}}")
            guard let source = HandlebarsArguments.literal(params[1]) else {
                throw HandlebarsHelperError(
                    message: "jsonPath's expression must be a quoted string (it is compiled when the stub loads)"
                )
            }
            do {
                compiled = .jsonPath(try JSONPath(source))
            } catch {
                throw HandlebarsHelperError(message: "jsonPath '\(source)': \(error)")
            }
        case .xPath:
            try a.need(2, "an XML value and an expression, as in {{xPath request.body '/order/id/text()'}}")
            guard let source = HandlebarsArguments.literal(params[1]) else {
                throw HandlebarsHelperError(
                    message: "xPath's expression must be a quoted string (it is compiled when the stub loads)"
                )
            }
            do {
                compiled = .xPath(try XPathExpression(source))
            } catch {
                throw HandlebarsHelperError(message: "xPath '\(source)': \(error.message)")
            }
        case .regexExtract, .matches:
            try a.need(2, "a value and a regular expression, as in {{\(helper.rawValue) request.body '[A-Z]+'}}")
            compiled = .regex(try compileRegex(a))
        case .now:
            compiled = .date(try DateSettings(a))
        case .randomValue:
            compiled = try randomValueSettings(a)
        case .randomInt, .randomDecimal:
            let number: (String) -> Bool = helper == .randomInt ? { Int($0) != nil } : { Double($0) != nil }
            for key in ["lower", "upper"]
            where a.hash(key) != nil && HandlebarsArguments.literal(a.hash(key)).map(number) != true {
                throw HandlebarsHelperError(message: "\(helper.rawValue)'s \(key)= is a number")
            }
        case .array, .pickRandom, .hostname:
            break
        case .formatJson, .formatXml, .toJson, .parseJson, .jsonMerge, .jsonArrayAdd, .jsonRemove, .arrayAdd,
            .arrayRemove,
            .arrayJoin, .truncateDate, .systemValue, .soapXPath:
            compiled = try prepareStructured(a)
        }
        switch helper {
        case .date, .dateFormat, .parseDate: compiled = .date(try DateSettings(a))
        default: break
        }
        return HandlebarsCall(helper: helper, params: params, hash: hash, compiled: compiled)
    }

    private static func compileRegex(_ a: HandlebarsArguments) throws(HandlebarsHelperError) -> CompiledRegex {
        guard let pattern = HandlebarsArguments.literal(a.params[1]) else {
            throw HandlebarsHelperError(
                message:
                    """
                    \(a.helper.rawValue)'s regular expression must be a quoted string (it is compiled when the \
                    stub loads)
                    """
            )
        }
        if a.helper == .regexExtract, a.params.count >= 3, HandlebarsArguments.literal(a.params[2]) == nil {
            throw HandlebarsHelperError(message: "regexExtract's variable name must be a quoted string")
        }
        do {
            return try CompiledRegex(pattern)
        } catch let error as RegexSyntaxError {
            throw HandlebarsHelperError(
                message: "\(a.helper.rawValue) '\(pattern)': \(error.message) (at character \(error.offset))"
            )
        } catch {
            throw HandlebarsHelperError(message: "\(a.helper.rawValue) '\(pattern)': \(error)")
        }
    }

    private static func randomValueSettings(
        _ a: HandlebarsArguments
    ) throws(HandlebarsHelperError) -> HandlebarsCompiledArgument {
        let typeName = HandlebarsArguments.literal(a.hash("type")) ?? "ALPHANUMERIC"
        guard let kind = RandomValueKind(rawValue: typeName.uppercased()) else {
            throw HandlebarsHelperError(
                message: "randomValue type='\(typeName)': the types are "
                    + RandomValueKind.allCases.map(\.rawValue).joined(separator: ", ")
            )
        }
        var length = 36
        if kind != .UUID {
            guard let text = HandlebarsArguments.literal(a.hash("length")), let n = Int(text), (0...65_536).contains(n)
            else {
                throw HandlebarsHelperError(
                    message:
                        "randomValue needs length=N (0 to 65536), as in {{randomValue length=12 type='ALPHANUMERIC'}}"
                )
            }
            length = n
        }
        return .random(kind, length: length, uppercase: HandlebarsArguments.literal(a.hash("uppercase")) == "true")
    }

    /// The variable a call or block sets, for the parser's check of names (`regexExtract`'s
    /// third argument, `formData`'s second, `val`'s `assign=`, `#assign`'s first).
    static func assignedName(
        _ helper: HandlebarsHelper,
        _ params: [HandlebarsExpression],
        _ hash: [(String, HandlebarsExpression)]
    ) -> String? {
        switch helper {
        case .regexExtract: return params.count >= 3 ? HandlebarsArguments.literal(params[2]) : nil
        case .formData: return params.count >= 2 ? HandlebarsArguments.literal(params[1]) : nil
        case .assign: return params.first.flatMap { HandlebarsArguments.literal($0) }
        case .val: return HandlebarsArguments.literal(hash.first { $0.0 == "assign" }?.1)
        case .parseJson: return params.last.flatMap { HandlebarsArguments.literal($0) }
        default: return nil
        }
    }

    // MARK: Rendering

    /// An inline call's value. Block uses of the same helpers go through `condition`.
    static func evaluate(_ call: HandlebarsCall, _ r: inout HandlebarsRenderer) -> HandlebarsValue {
        let args = call.params.map { r.evaluate($0) }
        var hashValues: [String: HandlebarsValue] = [:]
        for (key, expression) in call.hash where hashValues[key] == nil { hashValues[key] = r.evaluate(expression) }
        let hash: (String) -> HandlebarsValue? = { hashValues[$0] }
        switch call.helper {
        case .if:
            return args[0].isTruthy
                ? (args.count > 1 ? args[1] : .bool(true)) : (args.count > 2 ? args[2] : .string(""))
        case .unless: return .bool(!args[0].isTruthy)
        case .each, .with: return args[0]
        case .eq, .ne, .neq, .gt, .gte, .lt, .lte, .and, .or, .not, .contains:
            // Handlebars.java's inline form: yes= and no= replace true and false.
            let holds = condition(call.helper, args)
            return (holds ? hash("yes") : hash("no")) ?? .bool(holds)
        case .matches:
            guard case .regex(let regex)? = call.compiled else { return .null }
            return .bool(regex.matchesWhole(args[0].text))
        case .lookup: return args[0].member(args[1].text)
        case .range:
            guard let from = args[0].integer, let to = args[1].integer, from <= to, to - from < 10_000 else {
                return .list([])
            }
            r.charge(to - from + 1)
            return .list((from...to).map { .number($0) })
        case .randomValue:
            guard case .random(let kind, let length, let uppercase)? = call.compiled else { return .null }
            return .string(randomValue(kind, length: length, uppercase: uppercase))
        case .now, .date, .parseDate, .dateFormat:
            guard case .date(let settings)? = call.compiled else { return .null }
            return HandlebarsDateHelpers.evaluate(call.helper, settings, args)
        case .jsonPath:
            guard case .jsonPath(let path)? = call.compiled else { return .null }
            return jsonPath(path, args[0], fallback: hash("default") ?? .string(""), &r)
        case .xPath, .soapXPath:
            guard case .xPath(let path)? = call.compiled else { return .null }
            return HandlebarsXMLHelpers.evaluate(path, args[0], &r)
        case .formatJson, .toJson, .parseJson, .jsonMerge, .jsonRemove, .jsonArrayAdd:
            return HandlebarsJSONHelpers.evaluate(call, args, hash, &r)
        case .formatXml:
            return HandlebarsXMLHelpers.format(args[0], compact: hash("format")?.text == "compact", &r)
        case .arrayAdd, .arrayRemove, .arrayJoin:
            return HandlebarsArrayHelpers.evaluate(call.helper, args, hash, &r)
        case .hostname:
            return .string(HostName.own().first ?? "localhost")
        case .truncateDate:
            guard case .truncation(let truncation)? = call.compiled,
                let milliseconds = HandlebarsDateHelpers.parse(args[0], nil, zone: .utc)
            else { return .null }
            return .object(HandlebarsDate(epochMilliseconds: truncation.apply(toEpochMilliseconds: milliseconds)))
        case .systemValue:
            guard case .systemValue(let value)? = call.compiled else { return .null }
            return value.read(default: hash("default"))
        case .regexExtract:
            guard case .regex(let regex)? = call.compiled else { return .null }
            let text = args[0].text
            guard let match = regex.firstMatch(in: text) else { return hash("default") ?? .string("") }
            if args.count >= 3 {
                let groups: [HandlebarsValue] = match.groups.map { $0.map { .string(String(text[$0])) } ?? .null }
                r.variables[args[2].text] = .list(groups.isEmpty ? [.string(String(text[match.range]))] : groups)
                return .string("")
            }
            return .string(String(text[match.range]))
        case .val:
            let value = args[0].isPresent ? args[0] : (hash("or") ?? hash("default") ?? .null)
            if let name = hash("assign") {
                r.variables[name.text] = value
                return .string("")
            }
            return value
        case .assign:
            // Inline `{{assign 'name' value}}`: the block form is the documented one.
            r.variables[args[0].text] = args.count > 1 ? .string(args[1].text) : .string("")
            return .string("")
        case .formData:
            r.variables[args[1].text] = HandlebarsTextHelpers.formData(
                args[0].text,
                urlDecode: hash("urlDecode")?.isTruthy == true
            )
            return .string("")
        default:
            return HandlebarsTextHelpers.evaluate(call.helper, args, hash, &r)
        }
    }

    private static func jsonPath(
        _ path: JSONPath,
        _ source: HandlebarsValue,
        fallback: HandlebarsValue,
        _ r: inout HandlebarsRenderer
    ) -> HandlebarsValue {
        let document: JSONNode?
        switch source {
        case .json(let node): document = node
        default: document = r.data.parseJSON(source.text)
        }
        guard let document else { return fallback }
        var visits = 0
        let result = path.evaluate(document, budget: min(JSONPath.defaultBudget, r.remainingSteps), visits: &visits)
        r.charge(visits)
        switch result {
        case .missing: return fallback
        case .value(let node): return HandlebarsValue(json: node)
        case .list(let nodes): return .json(.array(nodes))
        }
    }

    /// The condition of a comparison or logic helper (inline or as a block).
    static func condition(_ helper: HandlebarsHelper, _ args: [HandlebarsValue]) -> Bool {
        switch helper {
        case .eq: return args[0].equals(args[1])
        case .ne, .neq: return !args[0].equals(args[1])
        case .gt, .gte, .lt, .lte:
            let order: Int
            if let a = args[0].numeric, let b = args[1].numeric {
                order = a < b ? -1 : (a > b ? 1 : 0)
            } else {
                order = args[0].text < args[1].text ? -1 : (args[0].text > args[1].text ? 1 : 0)
            }
            switch helper {
            case .gt: return order > 0
            case .gte: return order >= 0
            case .lt: return order < 0
            default: return order <= 0
            }
        case .and: return args.allSatisfy(\.isTruthy)
        case .or: return args.contains(where: \.isTruthy)
        case .not, .unless: return !args[0].isTruthy
        case .contains:
            if let items = args[0].iterationItems { return items.contains { $0.value.equals(args[1]) } }
            return args[0].text.contains(args[1].text)
        default: return args.first?.isTruthy ?? false
        }
    }

    static func randomValue(_ kind: RandomValueKind, length: Int, uppercase: Bool) -> String {
        let alphabet: [Character]
        switch kind {
        case .UUID: return uppercase ? RandomUUID.lowercase().uppercased() : RandomUUID.lowercase()
        case .ALPHANUMERIC: alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        case .ALPHABETIC: alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        case .NUMERIC: alphabet = Array("0123456789")
        case .HEXADECIMAL: alphabet = Array("0123456789abcdef")
        case .ALPHANUMERIC_AND_SYMBOLS:
            alphabet = Array(
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&()*+,-./:;<=>?@[]^_{|}~"
            )
        }
        var generator = SystemRandomNumberGenerator()
        let text = String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        return uppercase ? text.uppercased() : text
    }
}
