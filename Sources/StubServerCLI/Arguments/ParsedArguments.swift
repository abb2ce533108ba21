import StubEngine
import SystemSupport

/// The arguments after a command's name, checked against the options the command owns:
/// `--flag value` and `--flag=value`, flags without values, positional arguments. A mistake is
/// a `UsageError` that says what to do ("did you mean --port?", "--port applies to serve").
struct ParsedArguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []
    /// `--help` was among them.
    private(set) var wantsHelp = false

    /// - `others`: every command's options by command name, so a flag of another command is
    ///   named as such rather than as unknown.
    init(
        _ arguments: [String],
        command: String,
        options: [Option],
        positionals allowed: Int,
        others: [String: [Option]] = [:]
    ) throws(UsageError) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--help" || argument == "-h" {
                wantsHelp = true
                continue
            }
            guard argument.hasPrefix("-"), argument.count > 1 else {
                guard positionals.count < allowed else {
                    throw UsageError(
                        "unexpected argument \"\(argument)\" (did you forget a flag before it, like --dir?)"
                    )
                }
                positionals.append(argument)
                continue
            }
            var name = argument
            var inline: String?
            if let eq = argument.firstIndex(of: "=") {
                name = String(argument[..<eq])
                inline = String(argument[argument.index(after: eq)...])
            }
            guard let option = options.first(where: { $0.name == name }) else {
                throw Self.unknown(name, command: command, options: options, others: others)
            }
            guard option.value != nil else {
                if inline != nil { throw UsageError("\(name) takes no value") }
                flags.insert(name)
                continue
            }
            guard let value = inline ?? rest.popFirst() else { throw UsageError("\(name) needs a value") }
            if values[name] != nil && !option.repeatable { throw UsageError("\(name) is given twice") }
            values[name, default: []].append(value)
        }
    }

    private static func unknown(
        _ name: String,
        command: String,
        options: [Option],
        others: [String: [Option]]
    ) -> UsageError {
        // serve first: the command most options belong to, and the one people mean.
        let owners = others.filter { $0.key != command && $0.value.contains { $0.name == name } }.keys.sorted {
            $0 == "serve" || ($1 != "serve" && $0 < $1)
        }
        if let owner = owners.first {
            return UsageError("\(name) applies to \(owner), not to \(command)")
        }
        var message = "unknown option \(name)"
        if let near = Suggestion.closest(to: name, among: options.map(\.name).filter { $0.hasPrefix("--") }) {
            message += " (did you mean \(near)?)"
        }
        return UsageError(message)
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }
    func string(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }

    func nonEmpty(_ name: String, _ what: String) throws(UsageError) -> String? {
        guard let value = string(name) else { return nil }
        guard !value.isEmpty else { throw UsageError("\(name) needs \(what)") }
        return value
    }

    func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let value = string(name) else { return nil }
        guard let n = Int(value), range.contains(n) else {
            throw UsageError(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(value)\""
            )
        }
        return n
    }

    func seconds(_ name: String) throws(UsageError) -> Double? {
        guard let value = string(name) else { return nil }
        guard let n = Double(value), n > 0, n <= 86_400 else {
            throw UsageError("\(name) must be a number of seconds above 0, not \"\(value)\"")
        }
        return n
    }

    func byteSize(_ name: String) throws(UsageError) -> Int? {
        try string(name).map { value throws(UsageError) in try Self.byteSize(name, value) }
    }

    /// Bytes, with an optional binary suffix: K, M or G (1K = 1024), also written KB/KiB, MB/MiB,
    /// GB/GiB, in any case. Anything else after the digits is an error: "1G" once silently meant
    /// one byte and "5X" five.
    static func byteSize(_ flag: String, _ value: String) throws(UsageError) -> Int {
        let usage = UsageError("\(flag) must be a size in bytes such as 65536, 64K, 32M or 1G, not \"\(value)\"")
        let upper = value.uppercased()
        let digits = upper.prefix { $0.isASCII && $0.isNumber }
        let suffix = upper.dropFirst(digits.count)
        let scales: [Substring: Int] = [
            "": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10,
            "M": 1 << 20, "MB": 1 << 20, "MIB": 1 << 20,
            "G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30,
        ]
        guard let scale = scales[suffix], !digits.isEmpty, digits.count <= 15, let n = Int(digits), n > 0 else {
            throw usage
        }
        let (bytes, overflow) = n.multipliedReportingOverflow(by: scale)
        guard !overflow, bytes <= 1 << 40 else {
            throw UsageError("\(flag) must be at most 1T (\"\(value)\" is larger)")
        }
        return bytes
    }
}
