import Foundation
import HTTP1
import TestSupport
import XCTest

/// An https upstream: a local TLS server (Python's) with a certificate from a CA this test
/// makes with the `openssl` tool. Skipped, saying why, where either tool is missing.
final class TLSUpstreamTests: XCTestCase {
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

    private struct Upstream {
        let port: Int
        let caFile: String
    }

    private func tool(_ name: String) -> String? {
        for folder in ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin", "/bin"]
        where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
            return "\(folder)/\(name)"
        }
        return nil
    }

    @discardableResult
    private func run(_ executable: String, _ arguments: [String], in folder: URL) throws -> Int32 {
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

    /// A CA, a server certificate for localhost and 127.0.0.1 signed by it, and the server.
    private func startUpstream() throws -> Upstream {
        guard let openssl = tool("openssl") else {
            throw XCTSkip("openssl is not installed: cannot make a CA for the https upstream")
        }
        guard let python = tool("python3") else {
            throw XCTSkip("python3 is not installed: no local TLS server for the https upstream")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(
            to: folder.appendingPathComponent("ext.cnf"),
            atomically: true,
            encoding: .utf8
        )
        let steps: [[String]] = [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                "-subj", "/CN=stubserver test CA",
            ],
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj",
                "/CN=localhost",
            ],
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                "server.pem", "-days", "2", "-extfile", "ext.cnf",
            ],
        ]
        for step in steps {
            XCTAssertEqual(try run(openssl, step, in: folder), 0, "openssl \(step.joined(separator: " "))")
        }
        try Self.serverScript.write(to: folder.appendingPathComponent("server.py"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["server.py", "server.pem", "server.key"]
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        addTeardownBlock {
            process.terminate()
            process.waitUntilExit()
        }
        // The server prints its port once it listens: read that line (no sleeping).
        var line: [UInt8] = []
        while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != 10 { line.append(byte) }
        let port = try XCTUnwrap(Int(String(decoding: line, as: UTF8.self)))
        return Upstream(port: port, caFile: folder.appendingPathComponent("ca.pem").path)
    }

    func testHTTPSUpstreamWithTheCAFlagGivesTheExactBytes() throws {
        #if !os(Linux)
        throw XCTSkip("this checks the OpenSSL path, which is Linux's")
        #else
        let upstream = try startUpstream()
        for host in ["localhost", "127.0.0.1"] {
            let proxy = try ProxyHarness(self, upstream: "https://\(host):\(upstream.port)", caFile: upstream.caFile)
            let response = try proxy.exchange("GET /secure HTTP/1.1\r\nHost: app.test\r\n\r\n")
            XCTAssertEqual(response.status, 200, response.text)
            XCTAssertEqual(response.header("Content-Encoding"), "gzip", "the body is still gzip, so the field is true")
            let gunzipped = try gunzip(response.body)
            XCTAssertEqual(gunzipped, #"{"secure": true}"#)
            XCTAssertEqual(
                response.headers.filter { $0.0 == "Set-Cookie" }.map(\.1),
                ["a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "b=2"]
            )
            XCTAssertEqual(response.header("X-Seen-Host"), "\(host):\(upstream.port)")
        }
        #endif
    }

    func testHTTPSUpstreamWithoutTheCAIsRefused() throws {
        #if !os(Linux)
        throw XCTSkip("this checks the OpenSSL path, which is Linux's")
        #else
        let upstream = try startUpstream()
        let proxy = try ProxyHarness(self, upstream: "https://localhost:\(upstream.port)")
        let response = try proxy.exchange("GET /secure HTTP/1.1\r\nHost: app.test\r\n\r\n")
        XCTAssertEqual(response.status, 502)
        XCTAssertTrue(response.text.contains("certificate verify failed"), response.text)
        #endif
    }

    func testAnUnreadableCAFileFailsAtStart() throws {
        #if !os(Linux)
        throw XCTSkip("this checks the OpenSSL path, which is Linux's")
        #else
        XCTAssertThrowsError(try ProxyHarness(self, upstream: "https://localhost:1", caFile: "/nonexistent/ca.pem")) {
            error in
            XCTAssertTrue("\(error)".contains("/nonexistent/ca.pem"), "\(error)")
        }
        #endif
    }

    /// gzip's own tool, to check the bytes are a whole gzip member of the JSON.
    private func gunzip(_ bytes: [UInt8]) throws -> String {
        guard let gzip = tool("gzip") else { throw XCTSkip("no gzip tool") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gzip)
        process.arguments = ["-dc"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(bytes))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
