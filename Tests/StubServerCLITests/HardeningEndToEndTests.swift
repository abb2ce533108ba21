import Foundation
import TestSupport
import XCTest

/// Regression tests for the probe's findings that were seen through the binary (issue 10).
final class HardeningEndToEndTests: XCTestCase {
    // Row 1 (validate): a template with a huge `now` offset made `validate` trap.
    func testValidateReportsAHugeNowOffset() throws {
        let dir = folder(["t.json": #"{"response": {"template": true, "body": "{{now +106751991167301d}}"}}"#])
        let run = try runStubServer(["validate", "--dir", dir.path])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stdout.contains("t.json:1:") && run.stdout.contains("at most 100 years"), run.stdout)
    }

    // Row 7: "--max-body 1G" meant one byte and "5X" five.
    func testUnknownSizeSuffixesAreUsageErrors() throws {
        let run = try runStubServer(["--max-body", "5X"])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("--max-body must be a size"), run.stderr)
    }

    // Row 8: two links to the folder itself hung startup and validate; one loaded every stub 41 times.
    func testLinkLoopsLoadEachFileOnce() throws {
        let dir = folder(["one.json": #"{"request": {"path": "/one"}, "response": {"body": "1"}}"#])
        try FileManager.default.createSymbolicLink(
            atPath: dir.appendingPathComponent("x").path,
            withDestinationPath: "."
        )
        try FileManager.default.createSymbolicLink(
            atPath: dir.appendingPathComponent("y").path,
            withDestinationPath: dir.path
        )
        let run = try runStubServer(["validate", "--dir", dir.path])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("1 stub in 1 file, no errors"), run.stdout)
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0"])
        XCTAssertTrue(try XCTUnwrap(server.readyLine()).contains("(1 stub from"))
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }

    // Row 13: a 1 GB body file was read whole at load (3.2 GB peak on reload).
    func testAnOversizedBodyFileIsRefusedWithTheLimitNamed() throws {
        let dir = folder(["big.json": #"{"response": {"bodyFile": "__files/big.bin"}}"#, "__files/keep": ""])
        let big = dir.appendingPathComponent("__files/big.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: 1 << 30)  // sparse: no gigabyte is written
        try handle.close()
        let run = try runStubServer(["validate", "--dir", dir.path])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stdout.contains("1073741824 bytes, over the 64 MiB limit"), run.stdout)
    }

    // Row 15: a FIFO as a body file was refused with "check its permissions".
    func testAFIFOBodyFileIsNamedForWhatItIs() throws {
        let dir = folder(["pipe.json": #"{"response": {"bodyFile": "__files/pipe"}}"#, "__files/keep": ""])
        let mkfifo = Process()
        mkfifo.executableURL = URL(fileURLWithPath: "/usr/bin/mkfifo")
        mkfifo.arguments = [dir.appendingPathComponent("__files/pipe").path]
        try mkfifo.run()
        mkfifo.waitUntilExit()
        let run = try runStubServer(["validate", "--dir", dir.path])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stdout.contains("FIFO"), run.stdout)
        XCTAssertFalse(run.stdout.contains("permissions"), run.stdout)
    }
}
