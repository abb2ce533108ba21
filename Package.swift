// swift-tools-version:6.0
// stubserver: a mock HTTP server for client teams. No package dependencies: the toolchain only.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "stubserver",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "HTTP1", targets: ["HTTP1"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "StubEngine", targets: ["StubEngine"]),
        // For Swift test suites: an in-process server and a URLProtocol transport.
        .library(name: "StubKit", targets: ["StubKit"]),
        .executable(name: "stubserver", targets: ["stubserver"]),
        .executable(name: "benchserver", targets: ["benchserver"]),
    ],
    targets: [
        // Pure HTTP/1.1 codec: bytes in, requests and errors out; responses to bytes. No I/O.
        .target(name: "HTTP1", swiftSettings: strict),
        // POSIX sockets, the poll event loops, timers and lifecycle. All libc code is in Platform/.
        .target(name: "HTTPServer", dependencies: ["HTTP1"], swiftSettings: strict),
        // Stubs: loading and validation, matching, responses, near misses, reload. No sockets.
        .target(name: "StubEngine", dependencies: ["HTTP1"], swiftSettings: strict),
        // Embedding in Swift tests: LocalStubServer (real sockets, in process), StubURLProtocol
        // (no sockets), and Codable stub definitions that mirror the file format.
        .target(name: "StubKit", dependencies: ["StubEngine", "HTTPServer", "HTTP1"], swiftSettings: strict),
        // The command line: arguments, serving, validate, request log. Testable as a library.
        .target(name: "StubServerCLI", dependencies: ["StubEngine", "HTTPServer", "HTTP1"], swiftSettings: strict),
        // Importers of other formats into stubs; for now the YAML reader (OpenAPI documents are mostly YAML).
        .target(name: "StubImport", dependencies: ["StubEngine"], swiftSettings: strict),
        // The `stubserver` executable: hands the arguments to StubServerCLI.
        .executableTarget(name: "stubserver", dependencies: ["StubServerCLI"], swiftSettings: strict),
        // A fixed-response server for the benchmark until the stub engine serves.
        .executableTarget(name: "benchserver", dependencies: ["HTTPServer"], swiftSettings: strict),
        // A raw-socket client for tests that need exact bytes on the wire. Test-only.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "HTTP1Tests", dependencies: ["HTTP1"], swiftSettings: strict),
        .testTarget(name: "StubEngineTests", dependencies: ["StubEngine", "HTTP1"], swiftSettings: strict),
        .testTarget(name: "StubServerCLITests", dependencies: ["StubServerCLI", "stubserver"], swiftSettings: strict),
        .testTarget(name: "StubServingTests", dependencies: ["StubEngine", "HTTPServer", "HTTP1", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "StubImportTests", dependencies: ["StubImport", "StubEngine"], swiftSettings: strict),
        .testTarget(name: "StubKitTests", dependencies: ["StubKit", "StubEngine"], swiftSettings: strict),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "HTTP1", "TestSupport"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
