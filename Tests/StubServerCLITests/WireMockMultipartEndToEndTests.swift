import Foundation
import TestSupport
import XCTest

/// `multipartPatterns` through the binary users run, with the clients users upload with:
/// `curl -F` and Python's `requests` (`files=`), both writing `multipart/form-data`.
final class WireMockMultipartEndToEndTests: XCTestCase {
    static let mapping = #"""
        {"mappings": [
          {"request": {"method": "POST", "urlPath": "/upload", "multipartPatterns": [
             {"matchingType": "ANY", "headers": {"Content-Disposition": {"contains": "name=\"meta\""},
                                                 "Content-Type": {"contains": "application/json"}},
              "bodyPatterns": [{"matchesJsonPath": "$[?(@.album == 'trip')]"}]},
             {"headers": {"Content-Disposition": {"contains": "filename=\"photo.jpg\""}},
              "bodyPatterns": [{"binaryEqualTo": "/9j/4AAQ"}]}]},
           "response": {"status": 201, "body": "uploaded"}},
          {"request": {"method": "POST", "urlPath": "/fields", "multipartPatterns": [
             {"matchingType": "ALL", "bodyPatterns": [{"matches": "[0-9]+"}]}]},
           "response": {"body": "all numbers"}}
        ]}
        """#

    private func serve() throws -> (server: StubServerProcess, base: String, folder: URL) {
        for tool in ["curl", "python3"] where !Self.available(tool) {
            throw XCTSkip("\(tool) is not installed: skipped")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wm-mp-e2e-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("mappings"),
            withIntermediateDirectories: true
        )
        try Data(Self.mapping.utf8).write(to: folder.appendingPathComponent("mappings/upload.json"))
        // The JPEG's first bytes: a file part whose bytes are not text.
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]).write(to: folder.appendingPathComponent("photo.jpg"))
        let server = try StubServerProcess(["--wiremock", folder.path, "--port", "0", "--no-watch", "--log", "quiet"])
        addTeardownBlock {
            server.signal(SIGTERM)
            _ = server.exitStatus()
        }
        let base = try XCTUnwrap(server.baseURL(), server.stderr)
        return (server, base, folder)
    }

    static func available(_ tool: String) -> Bool {
        TLSTools.run("/usr/bin/env", ["which", tool]).status == 0
    }

    func testCurlFormUploadsMatch() throws {
        let (_, base, folder) = try serve()
        let photo = folder.appendingPathComponent("photo.jpg").path
        let matching = TLSTools.run(
            "curl",
            [
                "-sS", "--max-time", "20", "-w", " %{http_code}", "-F", "title=Holiday",
                "-F", #"meta={"album": "trip"};type=application/json"#, "-F", "picture=@\(photo)", base + "/upload",
            ]
        )
        XCTAssertEqual(matching.stdout, "uploaded 201", matching.all)
        let wrongAlbum = TLSTools.run(
            "curl",
            [
                "-sS", "--max-time", "20", "-o", "/dev/null", "-w", "%{http_code}",
                "-F", #"meta={"album": "work"};type=application/json"#, "-F", "picture=@\(photo)", base + "/upload",
            ]
        )
        XCTAssertEqual(wrongAlbum.stdout, "404", wrongAlbum.all)
        let numbers = TLSTools.run(
            "curl",
            ["-sS", "--max-time", "20", "-F", "a=1", "-F", "b=23", base + "/fields"]
        )
        XCTAssertEqual(numbers.stdout, "all numbers", numbers.all)
        let notAll = TLSTools.run(
            "curl",
            [
                "-sS", "--max-time", "20", "-o", "/dev/null", "-w", "%{http_code}", "-F", "a=1", "-F", "b=x",
                base + "/fields",
            ]
        )
        XCTAssertEqual(notAll.stdout, "404", notAll.all)
    }

    func testPythonRequestsFilesMatch() throws {
        let (_, base, folder) = try serve()
        let script = """
            import sys, requests
            base, photo = sys.argv[1], sys.argv[2]
            with open(photo, "rb") as f:
                data = f.read()
            ok = requests.post(base + "/upload", timeout=20, files={
                "meta": (None, '{"album": "trip"}', "application/json"),
                "picture": ("photo.jpg", data, "image/jpeg")})
            renamed = requests.post(base + "/upload", timeout=20, files={
                "meta": (None, '{"album": "trip"}', "application/json"),
                "picture": ("other.jpg", data, "image/jpeg")})
            print(ok.status_code, ok.text, renamed.status_code)
            """
        let run = TLSTools.run("python3", ["-c", script, base, folder.appendingPathComponent("photo.jpg").path])
        if run.stderr.contains("No module named 'requests'") { throw XCTSkip("Python's requests is not installed") }
        XCTAssertEqual(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "201 uploaded 404", run.all)
    }
}
