@testable import StubServerCLI
import XCTest

final class ArgumentTests: XCTestCase {
    func testDefaults() throws {
        let o = try CommandLineOptions.parse([])
        XCTAssertEqual(o.command, .serve)
        XCTAssertEqual(o.directory, "stubs")
        XCTAssertEqual(o.port, 8080)
        XCTAssertEqual(o.host, "127.0.0.1")
        XCTAssertTrue(o.watch)
        XCTAssertEqual(o.log, .text)
    }

    func testBothValueForms() throws {
        let a = try CommandLineOptions.parse(["--dir", "x", "--port=0", "--host", "::1", "--log=json", "--no-watch", "--verbose",
                                              "--port-file", "/tmp/p", "--delay=20", "--max-body", "1M", "--idle-timeout", "2.5"])
        XCTAssertEqual(a.directory, "x")
        XCTAssertEqual(a.port, 0)
        XCTAssertEqual(a.host, "::1")
        XCTAssertEqual(a.log, .json)
        XCTAssertFalse(a.watch)
        XCTAssertTrue(a.verbose)
        XCTAssertEqual(a.portFile, "/tmp/p")
        XCTAssertEqual(a.globalDelayMilliseconds, 20)
        XCTAssertEqual(a.maxBodyBytes, 1 << 20)
        XCTAssertEqual(a.idleTimeoutSeconds, 2.5)
        XCTAssertEqual(try CommandLineOptions.parse(["--dir=a=b"]).directory, "a=b", "only the first = splits")
    }

    func testValidateHelpAndVersion() throws {
        XCTAssertEqual(try CommandLineOptions.parse(["validate", "--dir", "d"]).command, .validate)
        XCTAssertEqual(try CommandLineOptions.parse(["validate", "--dir", "d"]).directory, "d")
        XCTAssertEqual(try CommandLineOptions.parse(["--help"]).command, .help)
        XCTAssertEqual(try CommandLineOptions.parse(["-h"]).command, .help)
        XCTAssertEqual(try CommandLineOptions.parse(["--version"]).command, .version)
    }

    func testUsageErrors() {
        let cases: [([String], String)] = [
            (["--bogus"], "unknown option --bogus"),
            (["--prot", "1"], "did you mean --port?"),
            (["--port"], "--port needs a value"),
            (["--port", "http"], "0 to 65535"),
            (["--port", "70000"], "0 to 65535"),
            (["--log", "loud"], "text, json or quiet"),
            (["--no-watch=yes"], "takes no value"),
            (["--dir", "a", "--dir", "b"], "given twice"),
            (["serve2"], "unknown command"),
            (["--dir", "a", "extra"], "unexpected argument"),
            (["validate", "--port", "1"], "applies when serving"),
            (["--max-body", "lots"], "size in bytes"),
            (["--header-timeout", "0"], "above 0"),
        ]
        for (arguments, fragment) in cases {
            do {
                _ = try CommandLineOptions.parse(arguments)
                XCTFail("accepted \(arguments)")
            } catch {
                XCTAssertTrue(error.description.contains(fragment), "\(arguments): \(error.description)")
            }
        }
    }

    func testByteSizes() throws {
        XCTAssertEqual(try CommandLineOptions.byteSize("--x", "65536"), 65536)
        XCTAssertEqual(try CommandLineOptions.byteSize("--x", "64K"), 65536)
        XCTAssertEqual(try CommandLineOptions.byteSize("--x", "64kib"), 65536)
        XCTAssertEqual(try CommandLineOptions.byteSize("--x", "32MB"), 32 << 20)
        // Regression: "1G" meant one byte and "5X" five (unknown suffixes were dropped).
        XCTAssertEqual(try CommandLineOptions.byteSize("--x", "1G"), 1 << 30)
        XCTAssertEqual(try CommandLineOptions.byteSize("--x", "2gib"), 2 << 30)
        for bad in ["5X", "1T", "1GG", "K", "", "-1", "1.5M", "0", "99999999999999999G", "1 M"] {
            XCTAssertThrowsError(try CommandLineOptions.byteSize("--max-body", bad), bad) { error in
                XCTAssertTrue("\(error)".contains("--max-body"), "\(error)")
            }
        }
    }
}
