// swift-tools-version:6.0
// stubserver: a mock HTTP server for client teams. No package dependencies: the toolchain only.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "stubserver",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        // The one library: Swift test suites get an in-process server and a URLProtocol
        // transport over the same stubs. Every other module is the package's own (`package`
        // access), so its API can change without breaking anyone.
        .library(name: "StubKit", targets: ["StubKit"]),
        .executable(name: "stubserver", targets: ["stubserver"]),
        .executable(name: "benchserver", targets: ["benchserver"]),
    ],
    targets: [
        // Platform services that are not HTTP: the one lock type, the one folder walk, file writes,
        // signals and exit, and dates and time zones (the one calendar, the system's zone database).
        .target(name: "SystemSupport", swiftSettings: strict),
        // epoll and splice for Linux: Glibc's Swift module does not export them. Empty elsewhere.
        .target(name: "CSystemLinux"),
        // TLS for https upstreams and `--https`: the system's OpenSSL, loaded at run time (Linux;
        // no headers or libraries needed to build). On Apple platforms the server side is Secure
        // Transport (Security); elsewhere it reports itself unavailable.
        .target(
            name: "CTLS",
            linkerSettings: [
                .linkedLibrary("dl", .when(platforms: [.linux])),
                .linkedFramework("Security", .when(platforms: [.macOS, .iOS])),
                .linkedFramework("CoreFoundation", .when(platforms: [.macOS, .iOS])),
            ]
        ),
        // Pure HTTP/1.1 codec: bytes in, requests and errors out; responses to bytes. No I/O.
        .target(name: "HTTP1", dependencies: ["SystemSupport"], swiftSettings: strict),
        // POSIX sockets, the event loops (epoll, kqueue, poll), timers and lifecycle, and the proxy's
        // HTTP client on the same loops. All libc code is in Platform/.
        .target(
            name: "HTTPSockets",
            dependencies: [
                "HTTP1", "SystemSupport", "CTLS", .target(name: "CSystemLinux", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strict
        ),
        // Certificates for --https: PEM, DER and X.509 read and written in Swift, the local CA
        // (keys made and used by libcrypto through CTLS on Linux, by Security on Apple platforms).
        .target(name: "Certificates", dependencies: ["SystemSupport", "CTLS"], swiftSettings: strict),
        // Regular expressions that know nothing of stubs: a linear-time engine (an automaton) and
        // a budgeted backtracking one for the Java constructs it cannot run, behind CompiledRegex.
        .target(name: "RegularExpressions", dependencies: ["SystemSupport"], swiftSettings: strict),
        // JSON that knows nothing of stubs: the parser that keeps each value's line and column, the
        // node, RFC 6901 pointers, and the compact, pretty and Jackson-style writers.
        .target(name: "JSON", swiftSettings: strict),
        // JSONPath as Jayway evaluates it (WireMock's dialect), compiled once, evaluated within a budget.
        .target(name: "JSONPath", dependencies: ["JSON", "RegularExpressions"], swiftSettings: strict),
        // An XML reader with places in its errors, and the XPath 1.0 subset WireMock's xPath helper takes.
        .target(name: "XML", dependencies: ["SystemSupport"], swiftSettings: strict),
        // YAML that knows nothing of stubs: the JSON-compatible subset of YAML 1.2 read into JSON nodes,
        // with line and column (OpenAPI documents are mostly YAML).
        .target(name: "YAML", dependencies: ["JSON"], swiftSettings: strict),
        // JSON Schema that knows nothing of stubs: documents and their $refs across files, the
        // validator (OpenAPI 3.0's dialect, draft 4 and 2020-12) and the sampler that writes examples.
        .target(
            name: "JSONSchema",
            dependencies: ["JSON", "YAML", "RegularExpressions", "SystemSupport"],
            swiftSettings: strict
        ),
        // Handlebars that knows nothing of stubs: the template compiler and renderer, with the helpers
        // WireMock ships (text, numbers, lists, JSON, JSONPath, XML, dates as Java formats them).
        .target(
            name: "Handlebars",
            dependencies: ["JSON", "JSONPath", "XML", "RegularExpressions", "SystemSupport"],
            swiftSettings: strict
        ),
        // Stubs: the model, matching, responses, near misses, journal, reload, and the registries
        // formats and dialects plug into (stub decoders, folder formats, admin routes). No sockets.
        .target(
            name: "StubEngine",
            dependencies: [
                "JSON", "JSONPath", "XML", "Handlebars", "RegularExpressions", "HTTP1", "SystemSupport", "WebSocket",
            ],
            swiftSettings: strict
        ),
        // The native stub format: stub files and stub JSON decoded into the engine's model (every
        // problem with file:line:column), a folder of stub files, and stub JSON written. Plugged
        // into the engine as its stub decoder and folder format; StubEngine knows nothing of it.
        .target(
            name: "NativeStubs",
            dependencies: ["StubEngine", "JSON", "RegularExpressions", "HTTP1", "SystemSupport", "WebSocket"],
            swiftSettings: strict
        ),
        // The native admin API (stubs, the journal, scenarios, webhooks, the inspector's event
        // streams, WebSockets) as route sets the engine's builder registers; StubEngine owns the
        // registry, the access policy and the dispatch, and knows nothing of these routes.
        .target(
            name: "StubAdmin",
            dependencies: ["StubEngine", "JSON", "RegularExpressions", "HTTP1", "SystemSupport", "WebSocket"],
            swiftSettings: strict
        ),
        // Stub files authored from outside the engine: the recorder (an exchange observer and admin
        // routes plugged into the engine), the one planner of captured traffic into stub files
        // (recordings and HAR), and the one folder writer (recordings and every import).
        .target(
            name: "StubAuthoring",
            dependencies: ["StubEngine", "NativeStubs", "JSON", "HTTP1", "SystemSupport", "WebSocket"],
            swiftSettings: strict
        ),
        // The WireMock dialect: WireMock folders read, checked and translated into stubs, WireMock's
        // admin API, and `import wiremock`. Plugged into the engine by the command line (a folder
        // format, admin routes); StubEngine knows nothing of it.
        .target(
            name: "WireMock",
            dependencies: [
                "StubEngine", "NativeStubs", "StubAdmin", "StubAuthoring", "JSON", "JSONPath", "XML",
                "Handlebars", "RegularExpressions", "HTTP1", "SystemSupport",
            ],
            swiftSettings: strict
        ),
        // The WebSocket protocol, server side (RFC 6455): frames, the endpoint's state, the
        // handshake. Pure: bytes in, messages and bytes out; knows nothing of sockets or stubs.
        .target(name: "WebSocket", dependencies: ["SystemSupport"], swiftSettings: strict),
        // The inspector's page (GET /__admin/ui), plugged into the engine's admin routes. Its
        // HTML, CSS and JavaScript are files in Assets/, embedded at build time by EmbedAssets.
        .target(
            name: "Inspector",
            dependencies: ["StubEngine", "HTTP1"],
            exclude: ["Assets"],
            swiftSettings: strict,
            plugins: ["EmbedAssets"]
        ),
        // Build-time only: text files to Swift string constants, so the binary stays one file
        // (no resource bundle beside it). The tool behind the EmbedAssets plugin.
        .executableTarget(name: "AssetEmbedder", dependencies: ["SystemSupport"], swiftSettings: strict),
        .plugin(name: "EmbedAssets", capability: .buildTool(), dependencies: ["AssetEmbedder"]),
        // Forwarding to upstreams: the engine's transport over the server's HTTP client (and
        // URLSession for https where OpenSSL is missing). The glue between StubEngine and HTTPSockets.
        .target(
            name: "StubProxy",
            dependencies: [
                "StubEngine", "HTTPSockets", "HTTP1", "SystemSupport",
                .target(name: "StubProxyURLSession", condition: .when(platforms: [.macOS, .iOS])),
            ],
            swiftSettings: strict
        ),
        // https through URLSession, for where OpenSSL is not (macOS): its own module so that on
        // Linux the server does not load FoundationNetworking and libcurl (7 MiB of RSS) for it.
        .target(
            name: "StubProxyURLSession",
            dependencies: ["StubEngine", "HTTP1", "SystemSupport"],
            swiftSettings: strict
        ),
        // Embedding in Swift tests: LocalStubServer (real sockets, in process), StubURLProtocol
        // (no sockets), and Codable stub definitions that mirror the file format.
        .target(
            name: "StubKit",
            dependencies: [
                "StubEngine", "NativeStubs", "StubAdmin", "StubAuthoring", "StubProxy", "StubImport", "JSON",
                "HTTPSockets", "HTTP1", "SystemSupport", "Certificates",
            ],
            swiftSettings: strict
        ),
        // The command line: arguments, serving, validate, record, imports, request log. Testable as a library.
        .target(
            name: "StubServerCLI",
            dependencies: [
                "StubEngine", "NativeStubs", "StubAdmin", "StubAuthoring", "Inspector", "WireMock", "StubProxy",
                "StubImport", "JSON", "HTTPSockets", "HTTP1", "SystemSupport", "Certificates",
            ],
            swiftSettings: strict
        ),
        // Importers of other formats into stubs: OpenAPI (read with YAML), HAR, Postman; written
        // through StubAuthoring's folder writer. (WireMock folders are imported by the WireMock module.)
        .target(
            name: "StubImport",
            dependencies: [
                "StubEngine", "NativeStubs", "StubAuthoring", "JSON", "YAML", "JSONSchema", "Handlebars",
                "RegularExpressions", "HTTP1", "SystemSupport",
            ],
            swiftSettings: strict
        ),
        // The `stubserver` executable: hands the arguments to StubServerCLI.
        .executableTarget(name: "stubserver", dependencies: ["StubServerCLI"], swiftSettings: strict),
        // The HTTP layer alone, for the benchmark and the server-core tests: fixed, pending and
        // streamed answers.
        .executableTarget(
            name: "benchserver",
            dependencies: ["HTTPSockets", "HTTP1", "SystemSupport"],
            swiftSettings: strict
        ),
        // Test-only: a raw-socket client for exact bytes on the wire, the built binary as a child
        // process (StubServerProcess), and scripted, misbehaving and TLS upstreams.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "HTTP1Tests", dependencies: ["HTTP1"], swiftSettings: strict),
        .testTarget(name: "WebSocketTests", dependencies: ["WebSocket"], swiftSettings: strict),
        // Both regex engines against ICU (NSRegularExpression) and each other.
        // The parser's positions and errors, differential against JSONSerialization; pointers.
        .testTarget(name: "JSONTests", dependencies: ["JSON"], swiftSettings: strict),
        // Goessner's examples and Jayway's edge cases (the Jayway table itself is in WireMockTests).
        .testTarget(name: "JSONPathTests", dependencies: ["JSONPath", "JSON"], swiftSettings: strict),
        .testTarget(name: "XMLTests", dependencies: ["XML"], swiftSettings: strict),
        // The reader's cases, and the YAML test suite (../shared/corpora/yaml) where it is present.
        .testTarget(name: "YAMLTests", dependencies: ["YAML", "JSON"], swiftSettings: strict),
        // The validator and sampler, and the JSON Schema Test Suite (scripts/schema-conformance).
        .testTarget(name: "JSONSchemaTests", dependencies: ["JSONSchema", "JSON"], swiftSettings: strict),
        // Parsing, escaping, blocks, helpers, whitespace, load-time errors; dates read and written.
        .testTarget(
            name: "HandlebarsTests",
            dependencies: ["Handlebars", "JSON", "SystemSupport"],
            swiftSettings: strict
        ),
        .testTarget(name: "RegularExpressionsTests", dependencies: ["RegularExpressions"], swiftSettings: strict),
        // The calendar, the date names and padding, and the zone database reader (TZif, POSIX rules).
        .testTarget(name: "SystemSupportTests", dependencies: ["SystemSupport"], swiftSettings: strict),
        // PEM, DER, SHA-256, the local CA and the certificates it issues.
        .testTarget(name: "CertificatesTests", dependencies: ["Certificates"], swiftSettings: strict),
        .testTarget(
            name: "StubEngineTests",
            dependencies: [
                "StubEngine", "NativeStubs", "StubAdmin", "WireMock", "JSON", "RegularExpressions", "HTTP1",
                "SystemSupport", "WebSocket", "TestSupport",
            ],
            swiftSettings: strict
        ),
        // The planner of captured traffic (recordings, HAR) and the folder writer.
        .testTarget(
            name: "StubAuthoringTests",
            dependencies: ["StubAuthoring", "StubEngine", "JSON", "HTTP1", "WebSocket", "TestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "StubServerCLITests",
            dependencies: ["StubServerCLI", "stubserver", "TestSupport", "Certificates"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "StubServingTests",
            dependencies: [
                "StubEngine", "NativeStubs", "StubAdmin", "StubAuthoring", "Inspector", "WireMock", "JSON",
                "RegularExpressions", "HTTPSockets", "HTTP1", "TestSupport",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "StubImportTests",
            dependencies: [
                "StubImport", "StubEngine", "NativeStubs", "StubAuthoring", "JSON", "YAML", "JSONSchema",
                "RegularExpressions", "HTTPSockets", "HTTP1", "TestSupport", "stubserver",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "StubProxyTests",
            dependencies: [
                "StubProxy", "StubProxyURLSession", "StubEngine", "NativeStubs", "StubAdmin", "StubAuthoring",
                "HTTPSockets", "HTTP1", "WebSocket", "TestSupport",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "StubKitTests",
            dependencies: ["StubKit", "StubEngine", "TestSupport"],
            swiftSettings: strict
        ),
        // WireMock folders and admin clients (issue 16): the corpora over real sockets, the
        // admin dialect, the schema and the admin examples (read with the YAML module).
        .testTarget(
            name: "WireMockTests",
            dependencies: [
                "WireMock", "StubEngine", "NativeStubs", "StubAdmin", "StubAuthoring", "StubImport", "StubProxy",
                "JSON", "JSONPath", "YAML", "HTTPSockets", "HTTP1", "TestSupport", "stubserver",
            ],
            swiftSettings: strict
        ),
        // Reads docs/architecture.md and the sources: the import rules and line widths hold; and
        // StubKit's DocC catalog links only public symbols and its own articles.
        .testTarget(name: "ArchitectureTests", swiftSettings: strict),
        .testTarget(
            name: "HTTPSocketsTests",
            dependencies: ["HTTPSockets", "HTTP1", "SystemSupport", "TestSupport", "benchserver"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
