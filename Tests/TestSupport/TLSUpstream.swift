import Foundation
import XCTest

/// An https upstream for the proxy's tests: Python's HTTP server behind TLS, with a
/// certificate for localhost and 127.0.0.1 from a CA made for it with the `openssl` tool.
/// Every GET gets a gzip-compressed JSON body, two `Set-Cookie` fields and `X-Seen-Host`
/// (the Host it was sent). Throws `XCTSkip`, saying why, where openssl or python3 is missing.
public final class TLSUpstream: @unchecked Sendable {
    public let port: Int
    /// The CA's certificate (PEM), for `--proxy-ca`.
    public let caFile: String
    private let process: Process
    private let folder: URL

    private static let serverScript = #"""
        import gzip, http.server, ssl, sys
        BODY = gzip.compress(b'{"secure": true}', mtime=0)
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(BODY)))
                self.send_header("Set-Cookie", "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT")
                self.send_header("Set-Cookie", "b=2")
                self.send_header("X-Seen-Host", self.headers.get("Host", ""))
                self.send_header("X-Seen-Path", self.path)
                self.end_headers()
                self.wfile.write(BODY)
            def log_message(self, *args): pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    /// Makes the CA and the certificate, starts the server and reads its port (no sleeping).
    public init() throws {
        guard let openssl = Self.tool("openssl") else {
            throw XCTSkip("openssl is not installed: cannot make a CA for the https upstream")
        }
        guard let python = Self.tool("python3") else {
            throw XCTSkip("python3 is not installed: no local TLS server for the https upstream")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.folder = folder
        let extensions = "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
        try extensions.write(to: folder.appendingPathComponent("ext.cnf"), atomically: true, encoding: .utf8)
        let steps: [[String]] = [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                "-subj", "/CN=stubserver test CA",
            ],
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
                "-subj", "/CN=localhost",
            ],
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf",
            ],
        ]
        for step in steps {
            let status = try Self.run(openssl, step, in: folder)
            guard status == 0 else {
                throw XCTSkip(
                    "openssl \(step.joined(separator: " ")) exited \(status): no certificate for the upstream"
                )
            }
        }
        try Self.serverScript.write(to: folder.appendingPathComponent("server.py"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["server.py", "server.pem", "server.key"]
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        self.process = process
        // The server prints its port once it listens: read that line.
        var line: [UInt8] = []
        while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != 10 {
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw XCTSkip("the https upstream did not start (it printed \"\(String(decoding: line, as: UTF8.self))\")")
        }
        self.port = port
        caFile = folder.appendingPathComponent("ca.pem").path
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// An installed tool's path, or nil.
    public static func tool(_ name: String) -> String? {
        let folders = ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin", "/bin"]
        for folder in folders where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
            return "\(folder)/\(name)"
        }
        return nil
    }

    private static func run(_ executable: String, _ arguments: [String], in folder: URL) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
