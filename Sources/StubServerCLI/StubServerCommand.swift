import Foundation

/// The `stubserver` program: parses the arguments and runs a command. Returns the exit status.
public enum StubServerCommand {
    public static func main(_ arguments: [String]) -> Int32 {
        let console = Console()
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions.parse(Array(arguments.dropFirst()))
        } catch {
            console.err("stubserver: \(error)\n\n\(Usage.text)")
            return 2
        }
        switch options.command {
        case .help:
            console.out(Usage.text)
            return 0
        case .version:
            console.out("stubserver \(StubServerVersion.current)")
            return 0
        case .validate:
            return ValidateCommand(options: options, console: console).run()
        case .serve:
            return ServeCommand(options: options, console: console).run()
        }
    }
}
