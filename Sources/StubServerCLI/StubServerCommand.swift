#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StubEngine
import SystemSupport

/// The `stubserver` program: finds the command, parses its arguments, runs it. Returns the exit
/// status: 0 normal stop, 1 runtime failure or invalid stubs, 2 bad usage.
package enum StubServerCommand {
    /// Runs the program and ends the process with its status.
    package static func run(_ arguments: [String]) -> Never {
        ProcessExit.exit(main(arguments))
    }

    package static func main(_ arguments: [String]) -> Int32 {
        // Enough descriptors for --max-connections (macOS starts a process at 256).
        DescriptorLimit.raise()
        let console = Console()
        let arguments = Array(arguments.dropFirst())
        switch arguments.first {
        case "--help", "-h", "help":
            if arguments.first == "help", arguments.count > 1 {
                if let command = Commands.resolve(Array(arguments.dropFirst())).command {
                    console.out(command.help)
                    return 0
                }
            }
            console.out(overview)
            return 0
        case "--version":
            console.out("stubserver \(StubServerVersion.current)")
            return 0
        default:
            break
        }
        let resolved = Commands.resolve(arguments)
        guard let command = resolved.command else {
            let first = arguments.first ?? ""
            // `import` alone, or `import swagger`: name the two-word commands it starts.
            let kinds = Commands.all.map(\.name).filter { $0.hasPrefix(first + " ") }
            if !kinds.isEmpty {
                let given = arguments.count > 1 ? " \"\(arguments[1])\"" : ""
                return usageError(
                    """
                    \(first) needs what to import\(given.isEmpty ? "" : ", not" + given): \
                    \(kinds.joined(separator: " or "))
                    """,
                    hint: "stubserver \(kinds[0]) --help",
                    console
                )
            }
            var message =
                """
                unknown command \"\(first)\" (the commands are: \
                \(Commands.all.map(\.name).joined(separator: ", ")); serve is the default)
                """
            if let near = Suggestion.closest(to: first, among: Commands.all.map(\.name)) {
                message += "; did you mean \(near)?"
            }
            return usageError(message, hint: "stubserver --help", console)
        }
        switch prepare(command, Array(resolved.rest)) {
        case .success(nil):
            console.out(command.name == ServeCommand.name ? overview : command.help)
            return 0
        case .success(let runnable?):
            return runnable.run(console)
        case .failure(let error):
            return usageError(error.description, hint: "stubserver \(command.name) --help", console)
        }
    }

    /// The command ready to run, or nil when `--help` was asked for.
    private static func prepare(_ command: CommandEntry, _ arguments: [String]) -> Result<(any Command)?, UsageError> {
        do {
            let parsed = try ParsedArguments(
                arguments,
                command: command.name,
                options: command.options,
                positionals: command.positionalCount,
                others: Commands.optionsByCommand
            )
            if parsed.wantsHelp { return .success(nil) }
            return .success(try command.make(parsed))
        } catch let error as UsageError {
            return .failure(error)
        } catch {
            return .failure(UsageError("\(error)"))
        }
    }

    /// One line and a hint, not the whole help.
    private static func usageError(_ message: String, hint: String, _ console: Console) -> Int32 {
        console.err("stubserver: \(message)\nRun '\(hint)' for the usage.")
        return 2
    }

    /// `stubserver --help`: the commands, then serve's options (the default command).
    static var overview: String {
        var lines = ["stubserver \(StubServerVersion.current): a mock HTTP server for client teams", "", "Usage:"]
        var rows: [(String, String)] = []
        for command in Commands.all {
            for (i, line) in command.synopsis.enumerated() {
                rows.append(("  stubserver \(line)", i == 0 ? command.summary : ""))
            }
        }
        rows += [("  stubserver COMMAND --help", "a command's options"), ("  stubserver --version", "")]
        let width = rows.map(\.0.count).max()! + 2
        lines += rows.map { $0.1.isEmpty ? $0.0 : $0.0.padded(to: width) + $0.1 }
        lines += ["", "Options of serve (the default command):"]
        lines += ServeCommand.options.map(\.helpLine)
        lines.append(Option.flag("-h, --help", "show this help").helpLine)
        lines += ["", ServeCommand.details]
        return lines.joined(separator: "\n")
    }
}

package enum StubServerVersion {
    package static let current = "0.2.0"
}
