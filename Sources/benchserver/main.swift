// A fixed-response server for scripts/benchmark, until the stub engine serves: it measures the
// HTTP layer alone. Usage: benchserver PORT
import HTTP1
import HTTPServer
import Foundation

var configuration = ServerConfiguration()
configuration.port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 0 : 0
var headers = HeaderFields()
headers.add("Content-Type", "application/json")
let response = OutgoingResponse(PreparedResponse(status: 200, headers: headers,
                                             body: Array(#"{"id":42,"name":"swift-senpai","plan":"pro"}"#.utf8)))
let server = HTTP1Server(configuration: configuration) { _ in response }
do {
    try server.start()
} catch {
    print("benchserver: \(error)")
    exit(1)
}
print("benchserver listening on \(server.baseURL)")
fflush(nil) // the ready line must reach a pipe at once (scripts/benchmark waits for it)
server.waitUntilStopped()
