/// Renders a compiled template against data (the request). Names resolve as in Handlebars.java:
/// block parameters, then variables set by helpers, then the current context and its parents,
/// then the data's roots. Work is bounded: a template cannot render more than
/// `maximumOutput` bytes or take more than `maximumSteps` steps, whatever the request. A step is
/// a node rendered, an expression evaluated, a loop iteration, an element a helper makes and a
/// node a JSONPath visits, so a loop that writes nothing costs as much as one that writes.
package struct HandlebarsRenderer {
    let data: any HandlebarsData
    private var contexts: [HandlebarsValue] = [.null]
    private var frames: [[String: HandlebarsValue]] = []
    var variables: [String: HandlebarsValue] = [:]
    private var output = ""
    private(set) var steps = 0
    static let maximumSteps = 1_000_000
    package static let maximumOutput = 16 << 20

    package init(data: any HandlebarsData) {
        self.data = data
    }

    package static func render(_ template: HandlebarsTemplate, data: any HandlebarsData) -> String {
        var renderer = HandlebarsRenderer(data: data)
        renderer.render(template.nodes)
        return renderer.output
    }

    /// The output, or nil when it passed `limit` bytes (rendering stops there).
    package static func render(_ template: HandlebarsTemplate, data: any HandlebarsData, limit: Int) -> String? {
        var renderer = HandlebarsRenderer(data: data)
        renderer.outputLimit = min(limit, maximumOutput)
        renderer.render(template.nodes)
        return renderer.output.utf8.count > renderer.outputLimit ? nil : renderer.output
    }

    private var outputLimit = maximumOutput

    private var exhausted: Bool { steps > Self.maximumSteps || output.utf8.count > outputLimit }

    private mutating func render(_ nodes: [HandlebarsNode]) {
        for node in nodes {
            steps += 1
            if exhausted { return }
            switch node {
            case .text(let s): output += s
            case .verbatim(let s): output += s
            case .value(let expression, let escaped):
                let text = evaluate(expression).text
                output += escaped ? Self.escapeHTML(text) : text
            case .block(let block): render(block)
            }
        }
    }

    private mutating func render(_ block: HandlebarsBlock) {
        let args = block.params.map { evaluate($0) }
        switch block.helper {
        case .each:
            guard let items = args[0].iterationItems else {
                // A single value renders once with itself as the context, as a section does.
                if args[0].isTruthy { renderWith(args[0], block) } else { render(block.inverse) }
                return
            }
            guard !items.isEmpty else {
                render(block.inverse)
                return
            }
            for (i, item) in items.enumerated() {
                steps += 1
                if exhausted { return }
                var frame: [String: HandlebarsValue] = [
                    "@index": .number(i), "@first": .bool(i == 0), "@last": .bool(i == items.count - 1),
                ]
                if let key = item.key { frame["@key"] = .string(key) }
                if block.blockParams.count > 0 { frame[block.blockParams[0]] = item.value }
                if block.blockParams.count > 1 {
                    frame[block.blockParams[1]] = item.key.map { .string($0) } ?? .number(i)
                }
                contexts.append(item.value)
                frames.append(frame)
                render(block.body)
                frames.removeLast()
                contexts.removeLast()
            }
        case .with:
            if args[0].isTruthy { renderWith(args[0], block) } else { render(block.inverse) }
        case .matches:
            guard case .regex(let regex)? = block.compiled else { return }
            render(regex.matchesWhole(args[0].text) ? block.body : block.inverse)
        case let helper where helper.takesBodyAsArgument:
            let body = HandlebarsExpression.literal(.string(renderToText(block.body)))
            let params =
                helper == .formatJson || helper == .formatXml || helper == .parseJson
                ? [body] + block.params : block.params + [body]
            let call = HandlebarsCall(helper: helper, params: params, hash: block.hash, compiled: block.compiled)
            output += HandlebarsHelpers.evaluate(call, &self).text
        case .arrayJoin:
            renderArrayJoin(block, args)
        case let helper where helper.takesBodyText:
            let text = renderToText(block.body)
            if helper == .assign {
                // Always text, as WireMock's assign.
                variables[args[0].text] = .string(text)
                return
            }
            var hash: [String: HandlebarsValue] = [:]
            for (key, expression) in block.hash { hash[key] = evaluate(expression) }
            output += HandlebarsTextHelpers.transform(helper, text, [], { hash[$0] })
        default:
            render(HandlebarsHelpers.condition(block.helper, args) ? block.body : block.inverse)
        }
    }

    /// `{{#arrayJoin ',' list as |item|}}...{{/arrayJoin}}`: the body once for each element,
    /// the results joined by the separator between `prefix=` and `suffix=`.
    private mutating func renderArrayJoin(_ block: HandlebarsBlock, _ args: [HandlebarsValue]) {
        var parts: [String] = []
        for item in HandlebarsArrayHelpers.joined(args) {
            steps += 1
            if exhausted { return }
            var frame: [String: HandlebarsValue] = [:]
            if let name = block.blockParams.first { frame[name] = item }
            contexts.append(item)
            frames.append(frame)
            parts.append(renderToText(block.body))
            frames.removeLast()
            contexts.removeLast()
        }
        var hash: [String: HandlebarsValue] = [:]
        for (key, expression) in block.hash { hash[key] = evaluate(expression) }
        output += (hash["prefix"]?.text ?? "") + parts.joined(separator: args[0].text) + (hash["suffix"]?.text ?? "")
    }

    /// A block's body rendered on its own, for the helpers that take it as their value.
    private mutating func renderToText(_ nodes: [HandlebarsNode]) -> String {
        let outside = output
        output = ""
        render(nodes)
        let text = output
        output = outside
        return text
    }

    private mutating func renderWith(_ value: HandlebarsValue, _ block: HandlebarsBlock) {
        var frame: [String: HandlebarsValue] = [:]
        if let name = block.blockParams.first { frame[name] = value }
        contexts.append(value)
        frames.append(frame)
        render(block.body)
        frames.removeLast()
        contexts.removeLast()
    }

    /// Work a helper did besides evaluating its arguments (elements made, nodes visited).
    mutating func charge(_ work: Int) {
        steps += work
    }

    /// Steps left before rendering stops (a helper's own bound, such as a JSONPath budget).
    var remainingSteps: Int { max(0, Self.maximumSteps - steps) }

    mutating func evaluate(_ expression: HandlebarsExpression) -> HandlebarsValue {
        steps += 1
        switch expression {
        case .literal(let value): return value
        case .path(let path): return resolve(path)
        case .call(let call): return HandlebarsHelpers.evaluate(call, &self)
        }
    }

    private func resolve(_ path: HandlebarsPath) -> HandlebarsValue {
        if path.isData {
            guard let name = path.segments.first else { return .null }
            if name == "root" { return walk(.null, path.segments.dropFirst(), fromRoot: true) }
            for frame in frames.reversed() {
                if let value = frame["@" + name] { return walk(value, path.segments.dropFirst()) }
            }
            return .null
        }
        if path.parents > 0 {
            let index = contexts.count - 1 - path.parents
            return index >= 0 ? walk(contexts[index], path.segments[...]) : .null
        }
        guard let first = path.segments.first else { return contexts.last ?? .null }
        let rest = path.segments.dropFirst()
        for frame in frames.reversed() { if let value = frame[first] { return walk(value, rest) } }
        if let value = variables[first] { return walk(value, rest) }
        for context in contexts.reversed() {
            let value = context.member(first)
            if case .null = value { continue }
            return walk(value, rest)
        }
        return walk(.null, path.segments[...], fromRoot: true)
    }

    private func walk(
        _ start: HandlebarsValue,
        _ segments: ArraySlice<String>,
        fromRoot: Bool = false
    ) -> HandlebarsValue {
        var value = start
        var rest = segments
        if fromRoot {
            guard let first = rest.first, let root = data.root(first) else { return .null }
            value = root
            rest = rest.dropFirst()
        }
        for segment in rest {
            value = value.member(segment)
            if case .null = value { return .null }
        }
        return value
    }

    /// Handlebars' escaping of `{{...}}` output (`{{{...}}}` is not escaped).
    static func escapeHTML(_ text: String) -> String {
        guard text.utf8.contains(where: { [38, 60, 62, 34, 39, 96, 61].contains($0) }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for ch in text.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#x27;"
            case "`": out += "&#x60;"
            case "=": out += "&#x3D;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}
