/// The command line, parsed. Our own parser: the contract forbids package dependencies, and
/// the grammar is small (`--flag value`, `--flag=value`, boolean flags, one subcommand).
public struct CommandLineOptions: Sendable, Equatable {
    public enum Command: Sendable, Equatable { case serve, validate, help, version }
    public enum LogFormat: String, Sendable, Equatable { case text, json, quiet }

    public var command: Command = .serve
    public var directory = "stubs"
    public var port = 8080
    public var host = "127.0.0.1"
    public var portFile: String?
    public var log: LogFormat = .text
    public var verbose = false
    public var watch = true
    /// Answer CORS preflights and add CORS headers to every response.
    public var cors = false
    /// Journal entries kept for the admin API; 0 turns the journal off.
    public var journal = 1000
    /// When set, admin requests need `Authorization: Bearer TOKEN`.
    public var adminToken: String?
    /// Extra milliseconds before every response, on top of a stub's own delay.
    public var globalDelayMilliseconds = 0
    public var maxBodyBytes = 32 * 1024 * 1024
    public var maxHeaderBytes = 64 * 1024
    public var maxTargetBytes = 8 * 1024
    public var headerTimeoutSeconds = 10.0
    public var idleTimeoutSeconds = 60.0
    public var maxConnections = 4096

    public init() {}
}

/// A usage mistake: printed with the usage text, exit status 2.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension CommandLineOptions {
    private static let valueFlags = ["--dir", "--port", "--host", "--port-file", "--log", "--delay", "--journal", "--admin-token",
                                     "--max-body", "--max-header", "--max-target", "--header-timeout",
                                     "--idle-timeout", "--max-connections"]
    private static let booleanFlags = ["--verbose", "--no-watch", "--cors", "--help", "-h", "--version"]
    /// Flags `validate` accepts; the rest only make sense when serving.
    private static let validateFlags = ["--dir", "--help", "-h", "--verbose"]

    /// Parses the arguments after the program name.
    public static func parse(_ arguments: [String]) throws(UsageError) -> CommandLineOptions {
        var options = CommandLineOptions()
        var rest = arguments[...]
        if let first = rest.first, !first.hasPrefix("-") {
            guard first == "validate" else {
                throw UsageError("unknown command \"\(first)\" (the commands are: serve by default, validate)")
            }
            options.command = .validate
            rest = rest.dropFirst()
        }
        var seen = Set<String>()
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("-") else {
                throw UsageError("unexpected argument \"\(argument)\" (did you forget a flag before it, like --dir?)")
            }
            var flag = argument
            var inlineValue: String?
            if let eq = argument.firstIndex(of: "=") {
                flag = String(argument[..<eq])
                inlineValue = String(argument[argument.index(after: eq)...])
            }
            if options.command == .validate && !validateFlags.contains(flag) && (valueFlags + booleanFlags).contains(flag) {
                throw UsageError("\(flag) applies when serving, not to validate")
            }
            if booleanFlags.contains(flag) {
                if inlineValue != nil { throw UsageError("\(flag) takes no value") }
                switch flag {
                case "--help", "-h": options.command = .help; return options
                case "--version": options.command = .version; return options
                case "--verbose": options.verbose = true
                case "--cors": options.cors = true
                default: options.watch = false
                }
                continue
            }
            guard valueFlags.contains(flag) else {
                var message = "unknown option \(flag)"
                if let near = closestFlag(flag) { message += " (did you mean \(near)?)" }
                throw UsageError(message)
            }
            guard seen.insert(flag).inserted else { throw UsageError("\(flag) is given twice") }
            guard let value = inlineValue ?? rest.popFirst() else {
                throw UsageError("\(flag) needs a value")
            }
            try options.apply(flag, value)
        }
        return options
    }

    private mutating func apply(_ flag: String, _ value: String) throws(UsageError) {
        switch flag {
        case "--dir":
            guard !value.isEmpty else { throw UsageError("--dir needs a folder") }
            directory = value
        case "--port":
            guard let n = Int(value), (0...65535).contains(n) else {
                throw UsageError("--port must be a number from 0 to 65535 (0 picks a free port), not \"\(value)\"")
            }
            port = n
        case "--host":
            guard !value.isEmpty else { throw UsageError("--host needs an address, such as 127.0.0.1 or 0.0.0.0") }
            host = value
        case "--port-file": portFile = value
        case "--log":
            guard let format = LogFormat(rawValue: value) else {
                throw UsageError("--log must be text, json or quiet, not \"\(value)\"")
            }
            log = format
        case "--delay": globalDelayMilliseconds = try Self.integer(flag, value, range: 0...600_000)
        case "--journal": journal = try Self.integer(flag, value, range: 0...1_000_000)
        case "--admin-token":
            guard !value.isEmpty else { throw UsageError("--admin-token needs a token") }
            adminToken = value
        case "--max-body": maxBodyBytes = try Self.byteSize(flag, value)
        case "--max-header": maxHeaderBytes = try Self.byteSize(flag, value)
        case "--max-target": maxTargetBytes = try Self.byteSize(flag, value)
        case "--header-timeout": headerTimeoutSeconds = try Self.seconds(flag, value)
        case "--idle-timeout": idleTimeoutSeconds = try Self.seconds(flag, value)
        case "--max-connections": maxConnections = try Self.integer(flag, value, range: 1...1_000_000)
        default: throw UsageError("unknown option \(flag)")
        }
    }

    private static func integer(_ flag: String, _ value: String, range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let n = Int(value), range.contains(n) else {
            throw UsageError("\(flag) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(value)\"")
        }
        return n
    }

    private static func seconds(_ flag: String, _ value: String) throws(UsageError) -> Double {
        guard let n = Double(value), n > 0, n <= 86_400 else {
            throw UsageError("\(flag) must be a number of seconds above 0, not \"\(value)\"")
        }
        return n
    }

    /// Bytes, with an optional binary suffix: K, M or G (1K = 1024), also written KB/KiB, MB/MiB,
    /// GB/GiB, in any case. Anything else after the digits is an error: "1G" once silently meant
    /// one byte and "5X" five.
    static func byteSize(_ flag: String, _ value: String) throws(UsageError) -> Int {
        let usage = UsageError("\(flag) must be a size in bytes such as 65536, 64K, 32M or 1G, not \"\(value)\"")
        let upper = value.uppercased()
        let digits = upper.prefix { $0.isASCII && $0.isNumber }
        let suffix = upper.dropFirst(digits.count)
        let scales: [Substring: Int] = ["": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10,
                                        "M": 1 << 20, "MB": 1 << 20, "MIB": 1 << 20,
                                        "G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30]
        guard let scale = scales[suffix], !digits.isEmpty, digits.count <= 15, let n = Int(digits), n > 0 else { throw usage }
        let (bytes, overflow) = n.multipliedReportingOverflow(by: scale)
        guard !overflow, bytes <= 1 << 40 else {
            throw UsageError("\(flag) must be at most 1T (\"\(value)\" is larger)")
        }
        return bytes
    }

    private static func closestFlag(_ flag: String) -> String? {
        let all = valueFlags + booleanFlags.filter { $0 != "-h" }
        return all.min { distance(flag, $0) < distance(flag, $1) }.flatMap { distance(flag, $0) <= 2 ? $0 : nil }
    }

    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let old = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = old
            }
        }
        return row[b.count]
    }
}
