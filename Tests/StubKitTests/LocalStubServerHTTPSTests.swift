import Foundation
import StubKit
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `LocalStubServer` over HTTPS: a temporary CA per server, its certificate verified by a real
/// client; on Apple platforms the `URLSession` it hands out trusts that CA and nothing else.
final class LocalStubServerHTTPSTests: XCTestCase {
    func server() throws -> LocalStubServer {
        try LocalStubServer(https: .temporaryAuthority) {
            StubDefinition(request: .get("/v1/me"), response: .json(["id": 42]))
        }
    }

    func testTheBaseURLIsHTTPSAndCurlVerifiesItAgainstTheTemporaryCA() throws {
        let curl = "/usr/bin/curl"
        guard FileManager.default.isExecutableFile(atPath: curl) else { throw XCTSkip("curl is not installed") }
        let server = try self.server()
        defer { server.stop() }
        XCTAssertEqual(server.baseURL.absoluteString, "https://127.0.0.1:\(server.port)")
        let pem = try XCTUnwrap(server.certificateAuthorityPEM)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stubkit-ca-\(UUID().uuidString).pem")
        try Data(pem.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        for base in [server.baseURL.absoluteString, "https://localhost:\(server.port)"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: curl)
            process.arguments = ["-sS", "--max-time", "20", "--cacert", file.path, base + "/v1/me"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let body = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
            XCTAssertEqual(String(decoding: body, as: UTF8.self), #"{"id":42}"#)
        }
        server.stubs.verify(.get("/v1/me"), count: 2)
        // Two servers, two CAs: a test trusts its own server only.
        let other = try self.server()
        defer { other.stop() }
        XCTAssertNotEqual(other.certificateAuthorityDER, server.certificateAuthorityDER)
    }

    func testPlainHTTPStillAnswersOnTheSamePort() throws {
        let server = try self.server()
        defer { server.stop() }
        let plain = URL(string: "http://127.0.0.1:\(server.port)/v1/me")!
        let done = expectation(description: "answered")
        nonisolated(unsafe) var status = 0
        URLSession(configuration: .ephemeral).dataTask(with: plain) { _, response, _ in
            status = (response as? HTTPURLResponse)?.statusCode ?? 0
            done.fulfill()
        }.resume()
        wait(for: [done], timeout: 20)
        XCTAssertEqual(status, 200)
    }

    #if canImport(Security)
    func testTheSessionTrustsTheServersCA() async throws {
        let server = try self.server()
        defer { server.stop() }
        let session = server.makeURLSession()
        let (data, response) = try await session.data(from: server.baseURL.appendingPathComponent("v1/me"))
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"id":42}"#)
        // A session without the delegate refuses the same server.
        do {
            _ = try await URLSession(configuration: .ephemeral).data(from: server.baseURL)
            XCTFail("an untrusted CA was accepted")
        } catch {}
    }
    #endif
}
