import JSONPath
import XML

/// Argument checks of WireMock 3's JSON, list, date, system and SOAP helpers.
extension HandlebarsHelpers {
    static func prepareStructured(
        _ a: HandlebarsArguments
    ) throws(HandlebarsHelperError) -> HandlebarsCompiledArgument? {
        let helper = a.helper
        let params = a.params
        switch helper {
        case .formatJson, .formatXml, .toJson, .parseJson, .jsonMerge, .jsonArrayAdd:
            // A `{{#formatJson}}` or `{{#formatXml}}` block has no arguments: its body is the input.
            let formats = helper == .formatJson || helper == .formatXml
            if !formats { try a.need(1, "a JSON value, as in {{\(helper.rawValue) request.body}}") }
            if formats, let format = try a.literalHash("format"), !["pretty", "compact"].contains(format) {
                throw HandlebarsHelperError(message: "\(helper.rawValue)'s format='\(format)' is not pretty or compact")
            }
            if helper == .jsonArrayAdd, let source = try a.literalHash("jsonPath") {
                return .jsonPath(try compileJSONPath(source))
            }
        case .jsonRemove:
            try a.need(2, "a JSON value and a JSONPath, as in {{jsonRemove request.body '$.name'}}")
            guard let source = HandlebarsArguments.literal(params[1]) else {
                throw HandlebarsHelperError(
                    message: "jsonRemove's path must be a quoted string (it is compiled when the stub loads)"
                )
            }
            return .jsonPath(try compileJSONPath(source))
        case .arrayAdd, .arrayRemove:
            try a.need(helper == .arrayAdd ? 2 : 1, helper == .arrayAdd ? "a list and a value" : "a list")
            if let position = a.hash("position"), HandlebarsArguments.literal(position) != nil,
                HandlebarsArrayHelpers.Position(.string(HandlebarsArguments.literal(position) ?? "")) == nil
            {
                throw HandlebarsHelperError(message: "\(helper.rawValue)'s position= is a number, 'start' or 'end'")
            }
        case .arrayJoin:
            try a.need(2, "a separator and a list, as in {{arrayJoin ',' (array 'a' 'b')}}")
        case .truncateDate:
            try a.need(
                2,
                "a date and a truncation, as in "
                    + "{{truncateDate (parseDate request.headers.Date) 'first day of month'}}"
            )
            guard let name = HandlebarsArguments.literal(params[1]),
                let truncation = DateTruncation(rawValue: name)
            else {
                let names = DateTruncation.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
                throw HandlebarsHelperError(message: "truncateDate's truncation is a quoted one of " + names)
            }
            return .truncation(truncation)
        case .systemValue:
            guard let key = try a.literalHash("key") else {
                throw HandlebarsHelperError(
                    message: "systemValue takes key='NAME', as in {{systemValue key='WIREMOCK_ENV'}}"
                )
            }
            let type = try a.literalHash("type") ?? "ENVIRONMENT"
            guard type == "ENVIRONMENT" || type == "PROPERTY" else {
                throw HandlebarsHelperError(message: "systemValue's type='\(type)' is not ENVIRONMENT or PROPERTY")
            }
            return .systemValue(SystemValue(key: key, isEnvironment: type == "ENVIRONMENT"))
        case .soapXPath:
            try a.need(2, "an XML value and an expression, as in {{soapXPath request.body '/m:order/m:id/text()'}}")
            guard let source = HandlebarsArguments.literal(params[1]) else {
                throw HandlebarsHelperError(
                    message: "soapXPath's expression must be a quoted string (it is compiled when the stub loads)"
                )
            }
            return .xPath(try compileSOAPXPath(source))
        default:
            break
        }
        return nil
    }

    static func compileJSONPath(_ source: String) throws(HandlebarsHelperError) -> JSONPath {
        do {
            return try JSONPath(source)
        } catch {
            throw HandlebarsHelperError(message: "JSONPath '\(source)': \(error)")
        }
    }

    /// WireMock's `soapXPath`: the expression below `/Envelope/Body` (local names, any prefix).
    static func compileSOAPXPath(_ source: String) throws(HandlebarsHelperError) -> XPathExpression {
        let prefix = source.hasPrefix("/") ? "/Envelope/Body" : "/Envelope/Body/"
        do {
            return try XPathExpression(prefix + source)
        } catch {
            let offset = max(0, error.offset - prefix.count)
            throw HandlebarsHelperError(message: "soapXPath '\(source)': \(error.message) (at character \(offset))")
        }
    }

}
