/// WireMock's list helpers: `arrayAdd` and `arrayRemove` (at a position, `start` or `end`,
/// the end by default) and `arrayJoin` (a separator, then a list or values, `prefix`/`suffix`).
enum HandlebarsArrayHelpers {
    /// Where `position=` points: an index, or `start`/`end` (checked at load when literal).
    enum Position: Equatable {
        case start
        case end
        case index(Int)

        init?(_ value: HandlebarsValue?) {
            guard let value else {
                self = .end
                return
            }
            switch value.text {
            case "start": self = .start
            case "end": self = .end
            default:
                guard let index = Int(value.text) else { return nil }
                self = .index(index)
            }
        }
    }

    static func evaluate(
        _ helper: HandlebarsHelper,
        _ args: [HandlebarsValue],
        _ hash: (String) -> HandlebarsValue?,
        _ r: inout HandlebarsRenderer
    ) -> HandlebarsValue {
        switch helper {
        case .arrayAdd:
            var items = elements(args[0])
            r.charge(items.count)
            guard let position = Position(hash("position")) else { return badPosition(hash("position")) }
            switch position {
            case .start: items.insert(args[1], at: 0)
            case .end: items.append(args[1])
            case .index(let i):
                guard (0...items.count).contains(i) else { return outOfBounds(i, items.count) }
                items.insert(args[1], at: i)
            }
            return .list(items)
        case .arrayRemove:
            var items = elements(args[0])
            r.charge(items.count)
            guard let position = Position(hash("position")) else { return badPosition(hash("position")) }
            guard !items.isEmpty else { return .list(items) }
            switch position {
            case .start: items.removeFirst()
            case .end: items.removeLast()
            case .index(let i):
                guard items.indices.contains(i) else { return outOfBounds(i, items.count) }
                items.remove(at: i)
            }
            return .list(items)
        case .arrayJoin:
            let items = joined(args)
            r.charge(items.count)
            let text = items.map(\.text).joined(separator: args[0].text)
            return .string((hash("prefix")?.text ?? "") + text + (hash("suffix")?.text ?? ""))
        default:
            return .null
        }
    }

    /// The values `arrayJoin` joins: one list argument's elements, or the values themselves.
    static func joined(_ args: [HandlebarsValue]) -> [HandlebarsValue] {
        let values = Array(args.dropFirst())
        if values.count == 1, let items = values[0].iterationItems { return items.map(\.value) }
        return values
    }

    private static func elements(_ value: HandlebarsValue) -> [HandlebarsValue] {
        if let items = value.iterationItems { return items.map(\.value) }
        return value.isPresent ? [value] : []
    }

    private static func badPosition(_ value: HandlebarsValue?) -> HandlebarsValue {
        HandlebarsJSONHelpers.error("position must be a number, 'start' or 'end' (not '\(value?.text ?? "")')")
    }

    private static func outOfBounds(_ index: Int, _ count: Int) -> HandlebarsValue {
        HandlebarsJSONHelpers.error("position \(index) is out of bounds for a list of \(count)")
    }
}
