import SystemSupport

/// Turns template text into `HandlebarsNode`s: first into text and tag tokens (whitespace
/// control and standalone lines applied there), then into a tree of blocks. Load time only.
struct HandlebarsParser {
    struct Tag {
        enum Kind { case value, raw, open, inverseOpen, close, elseTag, comment, partial }
        var kind: Kind
        var content: String
        var offset: Int
        var source: String
        var trimBefore: Bool
        var trimAfter: Bool
    }

    enum Token {
        case text(String)
        case tag(Tag)
    }

    private let text: [Character]
    private let knownRoots: Set<String>
    private(set) var warnings: [String] = []
    private var tokens: [Token] = []
    private var position = 0
    /// Names visible as roots here: block parameters and regexExtract variables.
    private var scopes: [Set<String>] = []
    /// Inside `#each` or `#with` the context changes, so any name may be a field of it.
    private var contextDepth = 0
    private var assigned: Set<String> = []
    static let maximumDepth = 64

    init(_ text: String, knownRoots: Set<String>) {
        self.text = Array(text)
        self.knownRoots = knownRoots
    }

    mutating func parseDocument() throws(HandlebarsError) -> [HandlebarsNode] {
        tokens = try tokenize()
        HandlebarsWhitespace.apply(&tokens)
        let (nodes, end) = try parseNodes(depth: 0)
        if let end { throw HandlebarsError(message: "{{\(end.source)}} closes nothing", offset: end.offset) }
        return nodes
    }

    // MARK: Tokens

    private func tokenize() throws(HandlebarsError) -> [Token] {
        var out: [Token] = []
        var literal = ""
        var i = 0
        while i < text.count {
            if text[i] == "\\", i + 2 < text.count, text[i + 1] == "{", text[i + 2] == "{" {
                // \{{ is a literal {{, as in Handlebars.
                literal += "{{"
                i += 3
                continue
            }
            guard text[i] == "{", i + 1 < text.count, text[i + 1] == "{" else {
                literal.append(text[i])
                i += 1
                continue
            }
            if !literal.isEmpty {
                out.append(.text(literal))
                literal = ""
            }
            let start = i
            let triple = i + 2 < text.count && text[i + 2] == "{"
            var j = i + (triple ? 3 : 2)
            var trimBefore = false
            if j < text.count, text[j] == "~" {
                trimBefore = true
                j += 1
            }
            let isLongComment = j + 2 < text.count && text[j] == "!" && text[j + 1] == "-" && text[j + 2] == "-"
            let closer: [Character] = isLongComment ? ["-", "-", "}", "}"] : (triple ? ["}", "}", "}"] : ["}", "}"])
            guard let close = find(closer, from: j) else {
                throw HandlebarsError(message: "\"{{\" is never closed with \"\(String(closer))\"", offset: start)
            }
            var contentEnd = close
            var trimAfter = false
            if isLongComment {
                contentEnd = close
            } else if contentEnd > j, text[contentEnd - 1] == "~" {
                trimAfter = true
                contentEnd -= 1
            }
            let end = close + closer.count
            let source = String(text[start..<end])
            var content = String(text[j..<max(j, contentEnd)])
            let kind: Tag.Kind
            if triple {
                kind = .raw
            } else if isLongComment || content.hasPrefix("!") {
                kind = .comment
            } else if content.hasPrefix("#") {
                kind = .open
                content.removeFirst()
            } else if content.hasPrefix("^") {
                let rest = content.dropFirst().trimmingTagSpace()
                if rest.isEmpty {
                    kind = .elseTag
                    content = ""
                } else {
                    kind = .inverseOpen
                    content = String(rest)
                }
            } else if content.hasPrefix("/") {
                kind = .close
                content.removeFirst()
            } else if content.hasPrefix("&") {
                kind = .raw
                content.removeFirst()
            } else if content.hasPrefix(">") {
                kind = .partial
            } else if content.trimmingTagSpace() == "else" || content.trimmingTagSpace().hasPrefix("else ") {
                kind = .elseTag
                content = String(content.trimmingTagSpace().dropFirst(4))
            } else {
                kind = .value
            }
            out.append(
                .tag(
                    Tag(
                        kind: kind,
                        content: String(content.trimmingTagSpace()),
                        offset: start,
                        source: source,
                        trimBefore: trimBefore,
                        trimAfter: trimAfter
                    )
                )
            )
            i = end
        }
        if !literal.isEmpty { out.append(.text(literal)) }
        return out
    }

    private func find(_ needle: [Character], from start: Int) -> Int? {
        guard needle.count <= text.count else { return nil }
        var i = start
        while i + needle.count <= text.count {
            if text[i] == needle[0], Array(text[i..<i + needle.count]) == needle { return i }
            i += 1
        }
        return nil
    }

    // MARK: Tree

    /// Nodes up to the tag that ends this level (`{{/x}}` or `{{else}}`), returned with them.
    private mutating func parseNodes(depth: Int) throws(HandlebarsError) -> ([HandlebarsNode], Tag?) {
        var nodes: [HandlebarsNode] = []
        while position < tokens.count {
            let token = tokens[position]
            position += 1
            switch token {
            case .text(let s):
                if !s.isEmpty { nodes.append(.text(s)) }
            case .tag(let tag):
                switch tag.kind {
                case .comment: continue
                case .close, .elseTag: return (nodes, tag)
                case .partial:
                    warnings.append("\(tag.source): partials are not supported; the tag is sent as written")
                    nodes.append(.verbatim(tag.source))
                case .value, .raw:
                    nodes.append(try valueNode(tag))
                case .open, .inverseOpen:
                    guard depth < Self.maximumDepth else {
                        throw HandlebarsError(message: "blocks are nested too deeply", offset: tag.offset)
                    }
                    nodes.append(try block(tag, depth: depth))
                }
            }
        }
        return (nodes, nil)
    }

    private mutating func valueNode(_ tag: Tag) throws(HandlebarsError) -> HandlebarsNode {
        var reader = HandlebarsExpressionReader(tag.content, offset: tag.offset)
        let words = try reader.readAll()
        guard let first = words.first else { throw HandlebarsError(message: "an empty tag {{}}", offset: tag.offset) }
        if case .word(let name) = first, let unknown = unknownHelper(name, argumentCount: words.count - 1) {
            warnings.append("\(tag.source): \(unknown); the tag is sent as written")
            return .verbatim(tag.source)
        }
        let expression = try expression(words, tag: tag)
        return .value(expression, escaped: tag.kind == .value)
    }

    /// The warning for a name that is not a helper, when it is used as one.
    private func unknownHelper(_ name: String, argumentCount: Int) -> String? {
        guard argumentCount > 0, HandlebarsHelper(rawValue: name) == nil, !name.contains("."), name != "this" else {
            return nil
        }
        var message = "unknown helper \"\(name)\""
        if let near = Suggestion.closest(to: name, among: HandlebarsHelper.allCases.map(\.rawValue)) {
            message += " (did you mean \(near)?)"
        }
        return message
    }

    private mutating func block(_ tag: Tag, depth: Int) throws(HandlebarsError) -> HandlebarsNode {
        var reader = HandlebarsExpressionReader(tag.content, offset: tag.offset)
        var words = try reader.readAll()
        let blockParams = reader.blockParams
        guard case .word(let name)? = words.first else {
            throw HandlebarsError(
                message: "a block starts with a helper name, as in {{#if request.query.debug}}",
                offset: tag.offset
            )
        }
        words.removeFirst()
        let helper: HandlebarsHelper
        if tag.kind == .inverseOpen {
            // {{^name}} is "unless name".
            helper = .unless
            words.insert(.word(name), at: 0)
        } else if let known = HandlebarsHelper(rawValue: name), known.isBlock {
            helper = known
        } else if HandlebarsHelper(rawValue: name) == nil, words.isEmpty {
            // {{#name}}: a section over a value, which Handlebars treats as `with` (or `each`
            // for a list): `each` renders a single value once, so it covers both.
            helper = .each
            words = [.word(name)]
        } else {
            let end = try skipBlock(named: name, depth: depth)
            let source = String(text[tag.offset..<end])
            warnings.append("{{#\(name)}}: unknown block helper \"\(name)\"; the block is sent as written")
            return .verbatim(source)
        }
        let (params, hash) = try arguments(words, tag: tag)
        try Self.checkBlockArguments(helper, params, tag)
        if let variable = HandlebarsHelpers.assignedName(helper, params, hash) { assigned.insert(variable) }
        // A block `matches` compiles its pattern here, as the inline one does.
        let compiles = [.matches, .jsonArrayAdd, .formatJson, .formatXml].contains(helper)
        let compiled = compiles ? try call(helper, words, tag: tag).compiled : nil
        let changesContext = helper == .each || helper == .with
        if changesContext { contextDepth += 1 }
        scopes.append(Set(blockParams))
        let (body, end) = try parseNodes(depth: depth + 1)
        var inverse: [HandlebarsNode] = []
        var closing = end
        if let elseTag = end, elseTag.kind == .elseTag {
            if elseTag.content.isEmpty {
                let (nodes, after) = try parseNodes(depth: depth + 1)
                inverse = nodes
                closing = after
            } else {
                // {{else if x}}: the rest is a block of its own that shares this one's end.
                let chained = Tag(
                    kind: .open,
                    content: elseTag.content,
                    offset: elseTag.offset,
                    source: elseTag.source,
                    trimBefore: false,
                    trimAfter: false
                )
                inverse = [try chainedBlock(chained, closing: name, depth: depth + 1)]
                closing = Tag(
                    kind: .close,
                    content: name,
                    offset: elseTag.offset,
                    source: "/\(name)",
                    trimBefore: false,
                    trimAfter: false
                )
            }
        }
        scopes.removeLast()
        if changesContext { contextDepth -= 1 }
        guard let closing, closing.kind == .close else {
            throw HandlebarsError(message: "{{#\(name)}} is never closed with {{/\(name)}}", offset: tag.offset)
        }
        guard closing.content == name else {
            throw HandlebarsError(message: "{{#\(name)}} is closed by {{/\(closing.content)}}", offset: closing.offset)
        }
        return .block(
            HandlebarsBlock(
                helper: helper,
                params: params,
                hash: hash,
                blockParams: blockParams,
                body: body,
                inverse: inverse,
                compiled: compiled
            )
        )
    }

    /// `{{else if ...}}`: parsed as a block whose `{{/...}}` is the outer block's, consumed
    /// here (the outer block takes it as read).
    private mutating func chainedBlock(
        _ tag: Tag,
        closing name: String,
        depth: Int
    ) throws(HandlebarsError) -> HandlebarsNode {
        var reader = HandlebarsExpressionReader(tag.content, offset: tag.offset)
        var words = try reader.readAll()
        guard case .word(let inner)? = words.first, let helper = HandlebarsHelper(rawValue: inner), helper.isBlock
        else {
            throw HandlebarsError(
                message: "{{else ...}} chains a block helper such as if, unless or eq",
                offset: tag.offset
            )
        }
        words.removeFirst()
        let (params, hash) = try arguments(words, tag: tag)
        try Self.checkBlockArguments(helper, params, tag)
        let (body, end) = try parseNodes(depth: depth)
        var inverse: [HandlebarsNode] = []
        var closing = end
        if let elseTag = end, elseTag.kind == .elseTag {
            if !elseTag.content.isEmpty {
                // Another {{else if ...}}: it consumes the shared close.
                let next = Tag(
                    kind: .open,
                    content: elseTag.content,
                    offset: elseTag.offset,
                    source: elseTag.source,
                    trimBefore: false,
                    trimAfter: false
                )
                inverse = [try chainedBlock(next, closing: name, depth: depth + 1)]
                return .block(
                    HandlebarsBlock(
                        helper: helper,
                        params: params,
                        hash: hash,
                        blockParams: [],
                        body: body,
                        inverse: inverse
                    )
                )
            }
            let (nodes, after) = try parseNodes(depth: depth)
            inverse = nodes
            closing = after
        }
        guard let closing, closing.kind == .close, closing.content == name else {
            throw HandlebarsError(message: "{{else \(inner) ...}} is not closed with {{/\(name)}}", offset: tag.offset)
        }
        return .block(
            HandlebarsBlock(helper: helper, params: params, hash: hash, blockParams: [], body: body, inverse: inverse)
        )
    }

    /// A block helper gets the values it reads when it renders (`{{#eq a}}` read a second value
    /// that was not there: a trap at the first request, from a template any admin client can post).
    private static func checkBlockArguments(
        _ helper: HandlebarsHelper,
        _ params: [HandlebarsExpression],
        _ tag: Tag
    ) throws(HandlebarsError) {
        let needed: Int
        switch helper {
        case .eq, .ne, .neq, .gt, .gte, .lt, .lte, .contains, .matches: needed = 2
        case .trim, .base64, .urlEncode, .upper, .lower, .capitalize, .formatJson, .formatXml: needed = 0
        case .arrayJoin: needed = 2
        default: needed = 1
        }
        guard params.count < needed else { return }
        let example =
            needed == 2
            ? "two values, as in {{#\(helper.rawValue) request.method 'POST'}}"
            : "a value, as in {{#\(helper.rawValue) request.query.debug}}"
        throw HandlebarsError(message: "\(tag.source): \(helper.rawValue) takes \(example)", offset: tag.offset)
    }

    /// Past the `{{/name}}` matching an unknown block, counting nested blocks of the same name;
    /// returns the character offset after it.
    private mutating func skipBlock(named name: String, depth: Int) throws(HandlebarsError) -> Int {
        var open = 1
        while position < tokens.count {
            defer { position += 1 }
            guard case .tag(let tag) = tokens[position] else { continue }
            if tag.kind == .open, tag.content.split(separator: " ").first.map(String.init) == name { open += 1 }
            if tag.kind == .close, tag.content == name {
                open -= 1
                if open == 0 { return tag.offset + tag.source.count }
            }
        }
        throw HandlebarsError(message: "{{#\(name)}} is never closed with {{/\(name)}}", offset: 0)
    }

    // MARK: Expressions

    private mutating func expression(
        _ words: [HandlebarsExpressionReader.Word],
        tag: Tag
    ) throws(HandlebarsError) -> HandlebarsExpression {
        if words.count == 1, case .word(let name) = words[0], let helper = HandlebarsHelper(rawValue: name),
            !helper.needsArguments
        {
            return .call(try call(helper, [], tag: tag))
        }
        if words.count == 1 { return try operand(words[0], tag: tag) }
        guard case .word(let name) = words[0], let helper = HandlebarsHelper(rawValue: name) else {
            throw HandlebarsError(
                message: "\(tag.source): expected a helper name before the arguments",
                offset: tag.offset
            )
        }
        return .call(try call(helper, Array(words.dropFirst()), tag: tag))
    }

    private mutating func call(
        _ helper: HandlebarsHelper,
        _ words: [HandlebarsExpressionReader.Word],
        tag: Tag
    ) throws(HandlebarsError) -> HandlebarsCall {
        let (params, hash) = try arguments(words, tag: tag)
        if let variable = HandlebarsHelpers.assignedName(helper, params, hash) { assigned.insert(variable) }
        do {
            return try HandlebarsHelpers.prepare(helper, params: params, hash: hash)
        } catch {
            throw HandlebarsError(message: "\(tag.source): \(error.message)", offset: tag.offset)
        }
    }

    private mutating func arguments(
        _ words: [HandlebarsExpressionReader.Word],
        tag: Tag
    ) throws(HandlebarsError) -> ([HandlebarsExpression], [(String, HandlebarsExpression)]) {
        var params: [HandlebarsExpression] = []
        var hash: [(String, HandlebarsExpression)] = []
        for word in words {
            if case .pair(let key, let value) = word {
                hash.append((key, try operand(value, tag: tag)))
            } else {
                params.append(try operand(word, tag: tag))
            }
        }
        return (params, hash)
    }

    private mutating func operand(
        _ word: HandlebarsExpressionReader.Word,
        tag: Tag
    ) throws(HandlebarsError) -> HandlebarsExpression {
        switch word {
        case .string(let s): return .literal(.string(s))
        case .number(let text, let value): return .literal(.number(value, text: text))
        case .pair:
            throw HandlebarsError(
                message: "\(tag.source): key=value only follows a helper's arguments",
                offset: tag.offset
            )
        case .sub(let words):
            guard case .word(let name)? = words.first else {
                throw HandlebarsError(message: "\(tag.source): ( ) holds a helper call", offset: tag.offset)
            }
            guard let helper = HandlebarsHelper(rawValue: name) else {
                warnings.append("\(tag.source): unknown helper \"\(name)\" in ( ); it gives nothing")
                return .literal(.null)
            }
            return .call(try call(helper, Array(words.dropFirst()), tag: tag))
        case .word(let name):
            switch name {
            case "true": return .literal(.bool(true))
            case "false": return .literal(.bool(false))
            case "null", "undefined": return .literal(.null)
            default: break
            }
            let path = HandlebarsPath.parse(name)
            checkRoot(path, tag: tag)
            return .path(path)
        }
    }

    private mutating func checkRoot(_ path: HandlebarsPath, tag: Tag) {
        guard contextDepth == 0, !path.isData, path.parents == 0, let root = path.segments.first else { return }
        if knownRoots.contains(root) || assigned.contains(root) || scopes.contains(where: { $0.contains(root) }) {
            return
        }
        if let helper = HandlebarsHelper(rawValue: root), helper.needsArguments {
            warnings.append("\(tag.source): \(root) needs arguments")
            return
        }
        var message = "\(tag.source): unknown variable or helper \"\(root)\" (it renders as nothing)"
        if let near = Suggestion.closest(to: root, among: Array(knownRoots) + HandlebarsHelper.allCases.map(\.rawValue))
        {
            message += "; did you mean \(near)?"
        }
        warnings.append(message)
    }
}

private extension StringProtocol {
    /// A tag's content without the spaces and line breaks around it.
    func trimmingTagSpace() -> SubSequence {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
