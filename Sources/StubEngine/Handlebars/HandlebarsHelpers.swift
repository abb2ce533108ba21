#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

/// The helpers the subset knows. Any other name in a helper's place is a load warning.
enum HandlebarsHelper: String, Sendable, CaseIterable {
    case `if`, unless, each, with
    case eq, ne, gt, gte, lt, lte, and, or, not
    case jsonPath, regexExtract, now, randomValue, randomInt, range, size, lookup

    /// May open a block (`{{#eq a b}}...{{/eq}}`).
    var isBlock: Bool {
        switch self {
        case .if, .unless, .each, .with, .eq, .ne, .gt, .gte, .lt, .lte, .and, .or, .not: true
        default: false
        }
    }

    /// `{{now}}` alone is a call; `{{size}}` alone would be a variable.
    var needsArguments: Bool { !(self == .now || self == .randomValue || self == .randomInt) }
}

/// `now`'s hash, checked and compiled at load.
struct NowSettings: Sendable {
    enum Output: Sendable { case iso, epochMilliseconds, unixSeconds, pattern(JavaDateFormat) }
    var output: Output = .iso
    var offset: DateOffset?
    var timeZone = ZoneRules.utc
}

enum RandomValueKind: String, Sendable, CaseIterable {
    case ALPHANUMERIC, ALPHABETIC, NUMERIC, ALPHANUMERIC_AND_SYMBOLS, HEXADECIMAL, UUID
}

struct HandlebarsHelperError: Error { let message: String }

enum HandlebarsHelpers {
    /// Checks a call's arguments and compiles what can be compiled (a JSONPath, a regular
    /// expression, a date format), so rendering never parses.
    static func prepare(_ helper: HandlebarsHelper, params: [HandlebarsExpression],
                        hash: [(String, HandlebarsExpression)]) throws(HandlebarsHelperError) -> HandlebarsCall {
        func literal(_ e: HandlebarsExpression?) -> String? {
            if case .literal(.string(let s))? = e { return s }
            if case .literal(.number(_, let text))? = e { return text }
            if case .literal(.bool(let b))? = e { return b ? "true" : "false" }
            return nil
        }
        func need(_ count: Int, _ example: String) throws(HandlebarsHelperError) {
            guard params.count >= count else { throw HandlebarsHelperError(message: "\(helper.rawValue) takes \(example)") }
        }
        let lookupHash: (String) -> HandlebarsExpression? = { key in hash.first { $0.0 == key }?.1 }
        var compiled: HandlebarsCompiledArgument?
        switch helper {
        case .if, .unless, .each, .with, .not, .size:
            try need(1, "one value, as in {{#\(helper.rawValue) request.query.debug}}")
        case .eq, .ne, .gt, .gte, .lt, .lte, .lookup, .range:
            try need(2, "two values, as in {{#\(helper.rawValue) request.method 'POST'}}")
        case .and, .or:
            try need(1, "one value or more")
        case .jsonPath:
            try need(2, "a JSON value and an expression, as in {{jsonPath request.body '$.name'}}")
            guard let source = literal(params[1]) else {
                throw HandlebarsHelperError(message: "jsonPath's expression must be a quoted string (it is compiled when the stub loads)")
            }
            do {
                compiled = .jsonPath(try JSONPath(source))
            } catch {
                throw HandlebarsHelperError(message: "jsonPath '\(source)': \(error)")
            }
        case .regexExtract:
            try need(2, "a value and a regular expression, as in {{regexExtract request.body '[A-Z]+'}}")
            guard let pattern = literal(params[1]) else {
                throw HandlebarsHelperError(message: "regexExtract's regular expression must be a quoted string (it is compiled when the stub loads)")
            }
            if params.count >= 3, literal(params[2]) == nil {
                throw HandlebarsHelperError(message: "regexExtract's variable name must be a quoted string")
            }
            do {
                compiled = .regex(try CompiledRegex(pattern))
            } catch let error as RegexSyntaxError {
                throw HandlebarsHelperError(message: "regexExtract '\(pattern)': \(error.message) (at character \(error.offset))")
            } catch {
                throw HandlebarsHelperError(message: "regexExtract '\(pattern)': \(error)")
            }
        case .now:
            compiled = .now(try nowSettings(lookupHash, literal))
        case .randomValue:
            let typeName = literal(lookupHash("type")) ?? "ALPHANUMERIC"
            guard let kind = RandomValueKind(rawValue: typeName.uppercased()) else {
                throw HandlebarsHelperError(message: "randomValue type='\(typeName)': the types are " + RandomValueKind.allCases.map(\.rawValue).joined(separator: ", "))
            }
            var length = 36
            if kind != .UUID {
                guard let text = literal(lookupHash("length")), let n = Int(text), (0...65_536).contains(n) else {
                    throw HandlebarsHelperError(message: "randomValue needs length=N (0 to 65536), as in {{randomValue length=12 type='ALPHANUMERIC'}}")
                }
                length = n
            }
            compiled = .random(kind, length: length, uppercase: literal(lookupHash("uppercase")) == "true")
        case .randomInt:
            for key in ["lower", "upper"] where lookupHash(key) != nil && literal(lookupHash(key)).flatMap({ Int($0) }) == nil {
                throw HandlebarsHelperError(message: "randomInt's \(key)= is a whole number")
            }
        }
        return HandlebarsCall(helper: helper, params: params, hash: hash, compiled: compiled)
    }

    private static func nowSettings(_ hash: (String) -> HandlebarsExpression?, _ literal: (HandlebarsExpression?) -> String?) throws(HandlebarsHelperError) -> NowSettings {
        var settings = NowSettings()
        for key in ["format", "offset", "timezone"] where hash(key) != nil && literal(hash(key)) == nil {
            throw HandlebarsHelperError(message: "now's \(key)= must be a quoted string")
        }
        if let format = literal(hash("format")) {
            switch format {
            case "epoch": settings.output = .epochMilliseconds
            case "unix": settings.output = .unixSeconds
            default:
                do { settings.output = .pattern(try JavaDateFormat(format)) } catch { throw HandlebarsHelperError(message: "now format='\(format)': \(error.message)") }
            }
        }
        if let offset = literal(hash("offset")) {
            do { settings.offset = try DateOffset(offset) } catch { throw HandlebarsHelperError(message: "now \(error.message)") }
        }
        if let zone = literal(hash("timezone")) {
            do {
                settings.timeZone = try ZoneDatabase.rules(for: zone)
            } catch {
                throw HandlebarsHelperError(message: "now timezone='\(zone)' is not a time zone the system knows: \(error.description)")
            }
        }
        return settings
    }

    // MARK: Rendering

    /// An inline call's value. Block uses of the same helpers go through `condition`.
    static func evaluate(_ call: HandlebarsCall, _ r: inout HandlebarsRenderer) -> HandlebarsValue {
        let args = call.params.map { r.evaluate($0) }
        func hash(_ key: String) -> HandlebarsValue? { call.hashValue(key).map { r.evaluate($0) } }
        switch call.helper {
        case .if: return args[0].isTruthy ? (args.count > 1 ? args[1] : .bool(true)) : (args.count > 2 ? args[2] : .string(""))
        case .unless: return .bool(!args[0].isTruthy)
        case .each, .with: return args[0]
        case .eq, .ne, .gt, .gte, .lt, .lte, .and, .or, .not: return .bool(condition(call.helper, args))
        case .size:
            switch args[0] {
            case .string(let s): return .number(s.count)
            default:
                let count = args[0].iterationItems?.count ?? 0
                r.charge(count)
                return .number(count)
            }
        case .lookup: return args[0].member(args[1].text)
        case .range:
            guard let from = args[0].integer, let to = args[1].integer, from <= to, to - from < 10_000 else { return .list([]) }
            r.charge(to - from + 1)
            return .list((from...to).map { .number($0) })
        case .randomInt:
            let lower = hash("lower")?.integer ?? Int(Int32.min)
            let upper = hash("upper")?.integer ?? Int(Int32.max)
            return upper > lower ? .number(Int.random(in: lower..<upper)) : .number(lower)
        case .randomValue:
            guard case .random(let kind, let length, let uppercase)? = call.compiled else { return .null }
            return .string(randomValue(kind, length: length, uppercase: uppercase))
        case .now:
            guard case .now(let settings)? = call.compiled else { return .null }
            return .string(now(settings))
        case .jsonPath:
            guard case .jsonPath(let path)? = call.compiled else { return .null }
            let document: JSONNode?
            switch args[0] {
            case .json(let node): document = node
            default: document = r.data.parseJSON(args[0].text)
            }
            let fallback = hash("default") ?? .string("")
            guard let document else { return fallback }
            var visits = 0
            let result = path.evaluate(document, budget: min(JSONPath.defaultBudget, r.remainingSteps), visits: &visits)
            r.charge(visits)
            switch result {
            case .missing: return fallback
            case .value(let node): return HandlebarsValue(json: node)
            case .list(let nodes): return .json(.array(nodes))
            }
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
        }
    }

    /// The condition of a comparison or logic helper (inline or as a block).
    static func condition(_ helper: HandlebarsHelper, _ args: [HandlebarsValue]) -> Bool {
        switch helper {
        case .eq: return args[0].equals(args[1])
        case .ne: return !args[0].equals(args[1])
        case .gt, .gte, .lt, .lte:
            let order: Int
            if let a = args[0].numeric, let b = args[1].numeric { order = a < b ? -1 : (a > b ? 1 : 0) }
            else { order = args[0].text < args[1].text ? -1 : (args[0].text > args[1].text ? 1 : 0) }
            switch helper {
            case .gt: return order > 0
            case .gte: return order >= 0
            case .lt: return order < 0
            default: return order <= 0
            }
        case .and: return args.allSatisfy(\.isTruthy)
        case .or: return args.contains(where: \.isTruthy)
        case .not, .unless: return !args[0].isTruthy
        default: return args.first?.isTruthy ?? false
        }
    }

    static func now(_ settings: NowSettings) -> String {
        var milliseconds = Int((Date().timeIntervalSince1970 * 1000).rounded(.down))
        if let offset = settings.offset { milliseconds = offset.applied(to: milliseconds, in: settings.timeZone) }
        switch settings.output {
        case .epochMilliseconds: return String(milliseconds)
        case .unixSeconds: return String(CivilCalendar.floorDivide(milliseconds, 1000).quotient)
        case .iso: return JavaDateFormat.iso.format(epochMilliseconds: milliseconds, in: settings.timeZone)
        case .pattern(let format): return format.format(epochMilliseconds: milliseconds, in: settings.timeZone)
        }
    }

    static func randomValue(_ kind: RandomValueKind, length: Int, uppercase: Bool) -> String {
        let alphabet: [Character]
        switch kind {
        case .UUID: return uppercase ? TemplateContext.randomUUID().uppercased() : TemplateContext.randomUUID()
        case .ALPHANUMERIC: alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        case .ALPHABETIC: alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        case .NUMERIC: alphabet = Array("0123456789")
        case .HEXADECIMAL: alphabet = Array("0123456789abcdef")
        case .ALPHANUMERIC_AND_SYMBOLS: alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&()*+,-./:;<=>?@[]^_{|}~")
        }
        var generator = SystemRandomNumberGenerator()
        let text = String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        return uppercase ? text.uppercased() : text
    }
}
