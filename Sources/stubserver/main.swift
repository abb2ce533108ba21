// The `stubserver` command. Everything lives in StubServerCLI so it can be tested; this file
// only hands over the arguments and exits with the status.
import Foundation
import StubServerCLI

exit(StubServerCommand.main(CommandLine.arguments))
