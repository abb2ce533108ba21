@testable import StubServerCLI
import XCTest

final class ArgumentTests: XCTestCase {
    private func serve(_ arguments: [String]) throws -> ServingOptions {
        try ServingOptions(
            ParsedArguments(
                arguments,
                command: "serve",
                options: ServingOptions.options,
                positionals: 0,
                others: Commands.optionsByCommand
            )
        )
    }

    func testDefaults() throws {
        let o = try serve([])
        XCTAssertEqual(o.directory, "stubs")
        XCTAssertEqual(o.port, 8080)
        XCTAssertEqual(o.host, "127.0.0.1")
        XCTAssertTrue(o.watch)
        XCTAssertEqual(o.log, .text)
    }

    func testBothValueForms() throws {
        let a = try serve([
            "--dir", "x", "--port=0", "--host", "::1", "--log=json", "--no-watch", "--verbose",
            "--port-file", "/tmp/p", "--delay=20", "--max-body", "1M", "--idle-timeout", "2.5",
        ])
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
        XCTAssertEqual(try serve(["--dir=a=b"]).directory, "a=b", "only the first = splits")
    }

    func testCommandsResolve() throws {
        XCTAssertEqual(Commands.resolve([]).command?.name, "serve")
        XCTAssertEqual(Commands.resolve(["--port", "1"]).command?.name, "serve")
        XCTAssertEqual(Commands.resolve(["serve", "--port", "1"]).command?.name, "serve")
        XCTAssertEqual(Commands.resolve(["serve", "--port", "1"]).rest, ["--port", "1"])
        XCTAssertEqual(Commands.resolve(["validate", "--dir", "d"]).command?.name, "validate")
        XCTAssertNil(Commands.resolve(["serve2"]).command)
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
            (["--dir", "a", "extra"], "unexpected argument"),
            (["--max-body", "lots"], "size in bytes"),
            (["--header-timeout", "0"], "above 0"),
        ]
        for (arguments, fragment) in cases {
            do {
                _ = try serve(arguments)
                XCTFail("accepted \(arguments)")
            } catch {
                XCTAssertTrue("\(error)".contains(fragment), "\(arguments): \(error)")
            }
        }
        XCTAssertThrowsError(
            try ParsedArguments(
                ["--port", "1"],
                command: "validate",
                options: ValidateCommand.options,
                positionals: 0,
                others: Commands.optionsByCommand
            )
        ) { error in
            XCTAssertEqual("\(error)", "--port applies to serve, not to validate")
        }
    }

    func testByteSizes() throws {
        XCTAssertEqual(try ParsedArguments.byteSize("--x", "65536"), 65536)
        XCTAssertEqual(try ParsedArguments.byteSize("--x", "64K"), 65536)
        XCTAssertEqual(try ParsedArguments.byteSize("--x", "64kib"), 65536)
        XCTAssertEqual(try ParsedArguments.byteSize("--x", "32MB"), 32 << 20)
        // Regression (issue 10): "1G" meant one byte and "5X" five (unknown suffixes were dropped).
        XCTAssertEqual(try ParsedArguments.byteSize("--x", "1G"), 1 << 30)
        XCTAssertEqual(try ParsedArguments.byteSize("--x", "2gib"), 2 << 30)
        for bad in ["5X", "1T", "1GG", "K", "", "-1", "1.5M", "0", "99999999999999999G", "1 M"] {
            XCTAssertThrowsError(try ParsedArguments.byteSize("--max-body", bad), bad) { error in
                XCTAssertTrue("\(error)".contains("--max-body"), "\(error)")
            }
        }
    }
}
