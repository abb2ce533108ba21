/// A subcommand: owns its options, its help and what it does. Where to add one: a type here and
/// a line in `Commands.all`; `serve` is the default when the first argument is an option.
protocol Command: Sendable {
    /// As typed: `serve`, `validate` (or two words, `import openapi`).
    static var name: String { get }
    /// The usage line(s), without the leading "stubserver ".
    static var synopsis: [String] { get }
    /// One line for the command list.
    static var summary: String { get }
    static var options: [Option] { get }
    /// How many positional arguments it takes (a file to import, say).
    static var positionalCount: Int { get }
    /// Help text after the options, if any.
    static var details: String { get }
    static var help: String { get }

    init(_ arguments: ParsedArguments) throws(UsageError)
    func run(_ console: Console) -> Int32
}

extension Command {
    static var positionalCount: Int { 0 }
    static var details: String { "" }

    /// The whole help of the command.
    static var help: String { Commands.help(for: Self.self) }
}

/// A command as the dispatcher sees it: its description and how to make it from arguments.
/// (A struct of values rather than `any Command.Type`: existential metatypes crashed the
/// compiler's SIL generation here.)
struct CommandEntry: Sendable {
    let name: String
    let synopsis: [String]
    let summary: String
    let options: [Option]
    let positionalCount: Int
    let help: String
    let make: @Sendable (ParsedArguments) throws -> any Command

    init<C: Command>(_ type: C.Type) {
        name = C.name
        synopsis = C.synopsis
        summary = C.summary
        options = C.options
        positionalCount = C.positionalCount
        help = C.help
        make = { arguments in try C(arguments) }
    }
}

enum Commands {
    static let all: [CommandEntry] = [
        CommandEntry(ServeCommand.self), CommandEntry(ValidateCommand.self), CommandEntry(RecordCommand.self),
        CommandEntry(ImportOpenAPICommand.self), CommandEntry(ImportHARCommand.self),
        CommandEntry(ImportWireMockCommand.self), CommandEntry(ImportPostmanCommand.self),
        CommandEntry(CertsInitCommand.self), CommandEntry(CertsShowCommand.self), CommandEntry(CertsTrustCommand.self),
    ]

    static var optionsByCommand: [String: [Option]] {
        Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0.options) })
    }

    static var serve: CommandEntry { all[0] }

    /// The command an argument list names, and the arguments left for it. A leading option (or
    /// nothing) means `serve`.
    static func resolve(_ arguments: [String]) -> (command: CommandEntry?, rest: ArraySlice<String>) {
        guard let first = arguments.first, !first.hasPrefix("-") else { return (serve, arguments[...]) }
        if arguments.count >= 2, let two = all.first(where: { $0.name == "\(first) \(arguments[1])" }) {
            return (two, arguments.dropFirst(2))
        }
        return (all.first { $0.name == first }, arguments.dropFirst())
    }

    static func help<C: Command>(for _: C.Type) -> String {
        var lines = ["Usage:"] + C.synopsis.map { "  stubserver \($0)" }
        lines += ["", C.summary.prefix(1).uppercased() + C.summary.dropFirst() + ".", "", "Options:"]
        lines += C.options.map(\.helpLine)
        lines.append(Option.flag("-h, --help", "show this help").helpLine)
        if !C.details.isEmpty { lines += ["", C.details] }
        return lines.joined(separator: "\n")
    }
}
