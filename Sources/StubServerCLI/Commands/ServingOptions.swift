import HTTPSockets
import NativeStubs
import StubEngine
import SystemSupport
import WireMock

/// The options of every command that listens (serve today; record builds on it): address, log,
/// journal, admin token, realism and the HTTP limits, parsed and checked.
struct ServingOptions: Sendable, Equatable {
    enum LogFormat: String, Sendable, Equatable { case text, json, quiet }

    var directory = "stubs"
    var port = 8080
    var host = "127.0.0.1"
    var portFile: String?
    var log: LogFormat = .text
    var verbose = false
    var watch = true
    /// Answer CORS preflights and add CORS headers to every response.
    var cors = false
    /// Journal entries kept for the admin API; 0 turns the journal off.
    var journal = 1000
    /// When set, admin requests need `Authorization: Bearer TOKEN`. Beyond loopback one is
    /// generated at start when none is given (`--admin-open` turns that off).
    var adminToken: String?
    /// Host names the admin API answers besides localhost and IP addresses (`--allowed-host`).
    var allowedHosts: [String] = []
    /// Origins whose pages may change things through the admin API (`--admin-origin`).
    var adminOrigins: [String] = []
    /// Listening beyond loopback without a token: today's open admin API, with a warning.
    var adminOpen = false
    /// Extra milliseconds before every answer that imitates the API.
    var globalDelayMilliseconds = 0
    var maxBodyBytes = 32 * 1024 * 1024
    var maxHeaderBytes = 64 * 1024
    var maxTargetBytes = 8 * 1024
    var maxRenderedBodyBytes = Engine.Options().maximumRenderedBytes
    var headerTimeoutSeconds = 10.0
    var idleTimeoutSeconds = 60.0
    var writeTimeoutSeconds = 30.0
    var maxConnections = 4096
    /// The name of the folder format a flag gave (`wiremock` for `--wiremock DIR`); nil: as
    /// `--dir`'s folder is recognised (`resolvedFormat`).
    var givenFormat: String?
    /// The folder was named with a format's flag, not with `--dir`.
    var formatWasGiven: Bool { givenFormat != nil }
    var strict = false
    var globalTemplating = false
    /// Which admin API answers the routes both have; nil: the folder's.
    var adminDialect: AdminDialect?
    var allowShutdown = false
    /// TLS beside plain HTTP on the port (`--https`, `--cert`, `--key`, `--cert-host`).
    var https = HTTPSOptions()
    /// The server as a device's HTTP proxy (`--forward-proxy`, `--intercept`).
    var forwardProxy = ForwardProxyOptions()

    static let options: [Option] =
        [
            .value("--dir", "DIR", "folder of stub files (default: stubs)"),
            .value("--port", "N", "port to listen on; 0 picks a free port (default: 8080)"),
            .value("--host", "ADDR", "address to listen on (default: 127.0.0.1; 0.0.0.0 for devices on your LAN)"),
            .value("--port-file", "PATH", "write the bound port to PATH once listening (for scripts)"),
            .flag("--no-watch", "do not reload when stub files change (reloading is on by default)"),
            .value("--log", "text|json|quiet", "one line per request as text (default), JSON, or nothing"),
            .flag("--verbose", "also log request bodies of unmatched requests"),
            .flag("--cors", "answer CORS preflights and add CORS headers (for web apps on another origin)"),
            .value("--delay", "MS", "extra milliseconds before every stub's answer (not admin or preflights)"),
            .value("--journal", "N", "requests kept for the admin API's journal (default: 1000; 0 turns it off)"),
            .value(
                "--admin-token",
                "T",
                "admin API requests need Authorization: Bearer T (beyond loopback one is generated when not given)"
            ),
            .value(
                "--allowed-host",
                "NAME",
                """
                a host name the admin API and inspector answer besides localhost and IP addresses \
                (.example.test: every name below it)
                """,
                repeatable: true
            ),
            .value(
                "--admin-origin",
                "ORIGIN",
                "a web origin (http://host:port) whose pages may change things through the admin API",
                repeatable: true
            ),
            .flag(
                "--admin-open",
                "beyond loopback, leave the admin API open to anyone on the network (no token; not recommended)"
            ),
            .value("--max-body", "SIZE", "largest request body (default: 32M)"),
            .value("--max-header", "SIZE", "largest request header section (default: 64K)"),
            .value("--max-target", "SIZE", "longest request target (default: 8K)"),
            .value(
                "--max-rendered-body",
                "SIZE",
                "largest body a response template may render; more is a 500 (default: 8M)"
            ),
            .value("--header-timeout", "S", "seconds a client has to send its request headers (default: 10)"),
            .value("--idle-timeout", "S", "seconds an idle keep-alive connection stays open (default: 60)"),
            .value(
                "--write-timeout",
                "S",
                "seconds a client may take nothing of a response before it is closed (default: 30)"
            ),
            .value("--max-connections", "N", "open connections at most (default: 4096)"),
        ] + folderOptions + [
            .value(
                "--admin-dialect",
                "native|wiremock",
                """
                which admin API answers the routes both have, such as /__admin/requests (default: wiremock for \
                a WireMock folder, else native)
                """
            ),
            .flag(
                "--allow-shutdown",
                "let POST /__admin/shutdown stop the server (WireMock's admin API; refused without this flag)"
            ),
        ] + HTTPSOptions.options + ForwardProxyOptions.options

    /// What serve and validate share about the folder's format.
    static let folderOptions: [Option] = [
        .value(
            "--wiremock",
            "DIR",
            "a WireMock folder (mappings/ and __files/), served as it is (--dir recognises one too)"
        ),
        .flag("--strict", "treat every warning as an error (such as WireMock keys stubserver does not support)"),
        .flag(
            "--global-response-templating",
            "template every WireMock mapping's response, as WireMock's flag of that name does"
        ),
    ]

    init() {}

    init(_ a: ParsedArguments) throws(UsageError) {
        if let dir = try a.nonEmpty("--dir", "a folder") { directory = dir }
        try readFolderFormat(a)
        if let value = a.string("--admin-dialect") {
            guard let dialect = AdminDialect(rawValue: value) else {
                throw UsageError("--admin-dialect must be native or wiremock, not \"\(value)\"")
            }
            adminDialect = dialect
        }
        allowShutdown = a.has("--allow-shutdown")
        https = try HTTPSOptions(a)
        forwardProxy = try ForwardProxyOptions(a)
        if let value = a.string("--port") {
            guard let n = Int(value), (0...65535).contains(n) else {
                throw UsageError("--port must be a number from 0 to 65535 (0 picks a free port), not \"\(value)\"")
            }
            port = n
        }
        if let value = try a.nonEmpty("--host", "an address, such as 127.0.0.1 or 0.0.0.0") { host = value }
        portFile = a.string("--port-file")
        if let value = a.string("--log") {
            guard let format = LogFormat(rawValue: value) else {
                throw UsageError("--log must be text, json or quiet, not \"\(value)\"")
            }
            log = format
        }
        verbose = a.has("--verbose")
        watch = !a.has("--no-watch")
        cors = a.has("--cors")
        globalDelayMilliseconds = try a.integer("--delay", in: 0...600_000) ?? globalDelayMilliseconds
        journal = try a.integer("--journal", in: 0...1_000_000) ?? journal
        adminToken = try a.nonEmpty("--admin-token", "a token")
        allowedHosts = try a.all("--allowed-host").map { (value: String) throws(UsageError) -> String in
            let name = value.lowercased()
            guard !name.isEmpty, !name.contains(":"), !name.contains("/"), !name.contains(" ") else {
                throw UsageError(
                    "--allowed-host takes a host name without port or scheme, such as mac.local, not \"\(value)\""
                )
            }
            return name
        }
        adminOrigins = try a.all("--admin-origin").map { (value: String) throws(UsageError) -> String in
            let lower = value.lowercased()
            let authority =
                lower.hasPrefix("https://") ? lower.dropFirst(8) : lower.hasPrefix("http://") ? lower.dropFirst(7) : nil
            guard let authority, !authority.isEmpty,
                !(authority.hasSuffix("/") ? authority.dropLast() : authority).contains("/")
            else {
                throw UsageError(
                    """
                    --admin-origin takes an origin (scheme, host and port), such as http://localhost:3000, not \
                    \"\(value)\"
                    """
                )
            }
            return value
        }
        adminOpen = a.has("--admin-open")
        if adminOpen, adminToken != nil {
            throw UsageError(
                "give either --admin-token or --admin-open: --admin-open leaves the admin API without a token"
            )
        }
        maxBodyBytes = try a.byteSize("--max-body") ?? maxBodyBytes
        maxHeaderBytes = try a.byteSize("--max-header") ?? maxHeaderBytes
        maxTargetBytes = try a.byteSize("--max-target") ?? maxTargetBytes
        maxRenderedBodyBytes = try a.byteSize("--max-rendered-body") ?? maxRenderedBodyBytes
        headerTimeoutSeconds = try a.seconds("--header-timeout") ?? headerTimeoutSeconds
        idleTimeoutSeconds = try a.seconds("--idle-timeout") ?? idleTimeoutSeconds
        writeTimeoutSeconds = try a.seconds("--write-timeout") ?? writeTimeoutSeconds
        maxConnections = try a.integer("--max-connections", in: 1...1_000_000) ?? maxConnections
    }

    var serverConfiguration: ServerConfiguration {
        var c = ServerConfiguration()
        c.host = host
        c.port = port
        c.serverName = "stubserver/\(StubServerVersion.current)"
        c.limits.maxBodyBytes = maxBodyBytes
        c.limits.maxHeaderBytes = maxHeaderBytes
        c.limits.maxTargetBytes = maxTargetBytes
        c.headerTimeoutMilliseconds = Int64(headerTimeoutSeconds * 1000)
        c.idleTimeoutMilliseconds = Int64(idleTimeoutSeconds * 1000)
        c.writeTimeoutMilliseconds = Int64(writeTimeoutSeconds * 1000)
        c.maxConnections = maxConnections
        c.limits.acceptsConnect = forwardProxy.enabled
        return c
    }

    /// `--wiremock DIR` (not with `--dir`), `--strict`, `--global-response-templating`.
    mutating func readFolderFormat(_ a: ParsedArguments) throws(UsageError) {
        if let folder = try a.nonEmpty("--wiremock", "a WireMock folder") {
            guard a.string("--dir") == nil else {
                throw UsageError("give either --dir or --wiremock: --wiremock DIR is the folder to serve")
            }
            directory = folder
            givenFormat = WireMockFolderFormat.name
        }
        strict = a.has("--strict")
        globalTemplating = a.has("--global-response-templating")
    }

    /// The WireMock dialect as these options set it, for a server of a folder in `format`: its
    /// admin API answers the routes both APIs have by default when the folder is WireMock's.
    func wiremock(serving format: any StubFolderFormat) -> WireMockDialect {
        var settings = WireMockOptions()
        settings.globalTemplating = globalTemplating
        settings.allowShutdown = allowShutdown
        settings.adminDialect = adminDialect ?? (format is WireMockFolderFormat ? .wiremock : .native)
        return WireMockDialect(settings)
    }

    /// The folder formats `--dir` recognises: the dialects the command line plugs into the
    /// engine, and stub files for any other folder. A new dialect's folder format is added here
    /// (and its flag above).
    var folderFormats: StubFolderFormats {
        StubFolderFormats([WireMockFolderFormat(globalTemplating: globalTemplating)], otherwise: NativeStubFolder())
    }

    /// The folder's format: as given, or a WireMock folder when `--dir` names one (it has
    /// `mappings/` and no stub files elsewhere).
    var resolvedFormat: any StubFolderFormat {
        let formats = folderFormats
        if let given = givenFormat, let format = formats.dialects.first(where: { $0.name == given }) { return format }
        return formats.format(of: directory)
    }

    var loader: StubLoader {
        StubLoader(directory: directory, format: resolvedFormat, strict: strict)
    }

    var isLoopback: Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }

    /// Listening on every address (`0.0.0.0`, `::`): devices call the server by this
    /// machine's names, which the admin API then answers too.
    var listensEverywhere: Bool { host == "0.0.0.0" || host == "::" || host == "[::]" }

    /// Who may use the admin API: `token` is the one to require (given, or generated beyond
    /// loopback), the hosts include the listening name and, on every address, the machine's.
    func adminProtection(token: String?) -> AdminProtection {
        var hosts = allowedHosts
        if !listensEverywhere { hosts.append(host) }
        if listensEverywhere { hosts += HostName.own() }
        return AdminProtection(token: token, allowedHosts: hosts, allowedOrigins: adminOrigins)
    }
}
