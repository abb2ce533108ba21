#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

/// A date inside a template (what `parseDate` and `now` give `date` and `dateFormat`): an
/// instant, written as ISO 8601 in UTC when a tag writes it, as WireMock's `RenderableDate`.
struct HandlebarsDate: HandlebarsObject {
    let epochMilliseconds: Int

    var text: String { JavaDateFormat.iso.format(epochMilliseconds: epochMilliseconds, in: .utc) }

    func member(_ name: String) -> HandlebarsValue { .null }
}

/// The hash of `now`, `date`, `parseDate` and `dateFormat`, checked and compiled at load:
/// the output format, an offset, a time zone, and the format `parseDate` reads.
struct DateSettings: Sendable {
    enum Output: Sendable {
        case iso, epochMilliseconds, unixSeconds
        case pattern(JavaDateFormat)
    }

    var output: Output = .iso
    var offset: DateOffset?
    var timeZone = ZoneRules.utc
    /// `parseDate`'s format= (nil: ISO 8601, RFC 1123, RFC 1036, asctime, as WireMock tries).
    var input: Output?

    init(_ a: HandlebarsArguments) throws(HandlebarsHelperError) {
        let name = a.helper.rawValue
        // `dateFormat` takes the format as its second argument too, and zones as tz=.
        var format = try a.literalHash("format")
        if a.helper == .dateFormat, format == nil, a.params.count >= 2 {
            guard let text = HandlebarsArguments.literal(a.params[1]) else {
                throw HandlebarsHelperError(message: "dateFormat's format must be a quoted string")
            }
            format = text
        }
        if a.helper == .dateFormat {
            format = Self.styles[format ?? "medium"] ?? format
        }
        if let format {
            switch format {
            case "epoch": output = .epochMilliseconds
            case "unix": output = .unixSeconds
            default:
                do {
                    output = .pattern(try JavaDateFormat(format))
                } catch {
                    throw HandlebarsHelperError(message: "\(name) format='\(format)': \(error.message)")
                }
            }
        }
        if a.helper == .parseDate {
            input = format == nil ? nil : output
            output = .iso
        }
        if let text = try a.literalHash("offset") {
            do { offset = try DateOffset(text) } catch {
                throw HandlebarsHelperError(message: "\(name) \(error.message)")
            }
        }
        let zoneName = try a.literalHash("timezone")
        let tz = try a.literalHash("tz")
        if let zone = zoneName ?? tz {
            do {
                timeZone = try ZoneDatabase.rules(for: zone)
            } catch {
                throw HandlebarsHelperError(
                    message: "\(name) timezone='\(zone)' is not a time zone the system knows: \(error.description)"
                )
            }
        }
    }

    /// Handlebars.java's `dateFormat` styles, as Java writes them in English.
    static let styles = [
        "full": "EEEE, MMMM d, yyyy", "long": "MMMM d, yyyy", "medium": "MMM d, yyyy", "short": "M/d/yy",
    ]

    func write(_ epochMilliseconds: Int) -> String {
        var milliseconds = epochMilliseconds
        if let offset { milliseconds = offset.applied(to: milliseconds, in: timeZone) }
        switch output {
        case .epochMilliseconds: return String(milliseconds)
        case .unixSeconds: return String(CivilCalendar.floorDivide(milliseconds, 1000).quotient)
        case .iso: return JavaDateFormat.iso.format(epochMilliseconds: milliseconds, in: timeZone)
        case .pattern(let format): return format.format(epochMilliseconds: milliseconds, in: timeZone)
        }
    }
}

enum HandlebarsDateHelpers {
    static func evaluate(
        _ helper: HandlebarsHelper,
        _ settings: DateSettings,
        _ args: [HandlebarsValue]
    ) -> HandlebarsValue {
        switch helper {
        case .now:
            return .string(settings.write(Int((Date().timeIntervalSince1970 * 1000).rounded(.down))))
        case .parseDate:
            guard let milliseconds = parse(args[0], settings.input, zone: settings.timeZone) else { return .null }
            return .object(HandlebarsDate(epochMilliseconds: milliseconds))
        default:
            // `date` and `dateFormat`: a date from parseDate, epoch milliseconds, or text in one
            // of the formats parseDate reads without a format.
            guard let milliseconds = parse(args[0], nil, zone: .utc) else { return .string("") }
            return .string(settings.write(milliseconds))
        }
    }

    private static let httpFormats = [
        try! JavaDateFormat("EEE, d MMM yyyy HH:mm:ss z"),
        try! JavaDateFormat("EEEE, d-MMM-yy HH:mm:ss z"),
        try! JavaDateFormat("EEE MMM d HH:mm:ss yyyy"),
    ]

    /// Epoch milliseconds of a template value: a date, a number, or text in `format`.
    static func parse(_ value: HandlebarsValue, _ format: DateSettings.Output?, zone: ZoneRules) -> Int? {
        if case .object(let object) = value, let date = object as? HandlebarsDate { return date.epochMilliseconds }
        let text = value.text.trimmingSpaces()
        switch format {
        case .epochMilliseconds?: return Int(text)
        case .unixSeconds?: return Int(text).map { $0 * 1000 }
        case .pattern(let pattern)?: return pattern.parse(text, zone: zone)
        case .iso?, nil:
            if case .number(_, let digits) = value { return Int(digits) }
            if let iso = JavaDateFormat.parseISO8601(text, zone: zone) { return iso }
            for format in httpFormats {
                if let milliseconds = format.parse(text, zone: zone) { return milliseconds }
            }
            return nil
        }
    }
}
