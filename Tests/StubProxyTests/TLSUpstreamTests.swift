import Foundation
import HTTP1
import TestSupport
import XCTest

/// An https upstream (TestSupport's `TLSUpstream`: Python's TLS server, a CA made with the
/// `openssl` tool). Skipped, saying why, where either tool is missing.
final class TLSUpstreamTests: XCTestCase {
    private func startUpstream() throws -> TLSUpstream {
        let upstream = try TLSUpstream()
        addTeardownBlock { upstream.stop() }
        return upstream
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
        guard let gzip = TLSUpstream.tool("gzip") else { throw XCTSkip("no gzip tool") }
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
