import HTTP1
import HTTPSockets
import StubEngine

/// `--forward-proxy` and `--intercept`: the server as a device's HTTP proxy (docs/forward-proxy.md).
struct ForwardProxyOptions: Sendable, Equatable {
    var enabled = false
    var intercept = InterceptList()
    /// As given, for messages.
    var interceptEntries: [String] = []

    static let options: [Option] = [
        .flag(
            "--forward-proxy",
            """
            also be an HTTP proxy: absolute-form requests and CONNECT on the same port; stubs match by host, \
            the rest goes to its own host (docs/forward-proxy.md)
            """
        ),
        .value(
            "--intercept",
            "HOST[,HOST...]",
            """
            CONNECT to these hosts (*.example.com: every name below) is answered here with a certificate from \
            the local CA, and its requests are matched; other hosts get a blind tunnel (implies --forward-proxy)
            """,
            repeatable: true
        ),
    ]

    init() {}

    init(_ a: ParsedArguments) throws(UsageError) {
        interceptEntries = a.all("--intercept").flatMap { $0.split(separator: ",").map { $0.trimmingSpaces() } }
        if a.all("--intercept").contains(where: { $0.trimmingSpaces().isEmpty }) || interceptEntries.contains("") {
            throw UsageError("--intercept takes host names, such as api.example.com,*.example.org")
        }
        do {
            intercept = try InterceptList(interceptEntries)
        } catch {
            throw UsageError(error.description)
        }
        enabled = a.has("--forward-proxy") || !interceptEntries.isEmpty
    }

    /// For the ready line: `; a forward proxy, intercepting api.example.com, *.example.org`.
    var readyNote: String {
        guard enabled else { return "" }
        return interceptEntries.isEmpty
            ? "; a forward proxy, tunnelling every https host"
            : "; a forward proxy, intercepting \(interceptEntries.joined(separator: ", "))"
    }

    /// The engine's side; `token` is the admin token remote proxy clients must send.
    func settings(token: String?, timeoutSeconds: Double) -> ForwardProxy? {
        guard enabled else { return nil }
        return ForwardProxy(
            intercept: intercept,
            access: ForwardProxyAccess(token: token),
            timeoutMilliseconds: Int64(timeoutSeconds * 1000)
        )
    }
}
