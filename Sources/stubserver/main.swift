// The `stubserver` command. Everything lives in StubServerCLI so it can be tested; this file
// only hands over the arguments (and exits with the status).
import StubServerCLI

StubServerCommand.run(CommandLine.arguments)
