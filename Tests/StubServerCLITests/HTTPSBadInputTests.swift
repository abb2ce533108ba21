import Certificates
import Foundation
import TestSupport
import XCTest

/// What `--https`, `--cert`/`--key` and `certs` do with bad input and missing pieces: a clear
/// error naming the file and what is wrong, exit 1, nothing served half-configured.
final class HTTPSBadInputTests: XCTestCase {
    func home() -> URL { folder([:]) }

    func refuse(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let stubs = folder(["a.json": #"{"request": {"path": "/a"}, "response": {"body": "a"}}"#])
        var environment = environment
        if environment["STUBSERVER_HOME"] == nil { environment["STUBSERVER_HOME"] = home().path }
        let process = try StubServerProcess(["--dir", stubs.path, "--port", "0"] + arguments, environment: environment)
        let status = process.exitStatus()
        XCTAssertEqual(status, 1, "stdout: \(process.stdout)\nstderr: \(process.stderr)")
        XCTAssertFalse(process.stdout.contains("listening"), process.stdout)
        return process.stderr
    }

    /// A CA of the test's own, and a leaf from it written to files, `now` chosen by the test.
    func credentials(now: Int = LocalAuthority.currentTime()) throws -> (certificate: String, key: String, dir: URL) {
        let dir = folder([:])
        let authority = try LocalAuthority.create(
            in: CertificateHome(path: dir.appendingPathComponent("ca").path),
            now: now
        )
        let issued = try authority.issue(names: ["localhost", "127.0.0.1"], now: now)
        let certificate = dir.appendingPathComponent("server.pem")
        let key = dir.appendingPathComponent("server-key.pem")
        try Data(PEM.encode(label: "CERTIFICATE", der: issued.chain[0]).utf8).write(to: certificate)
        try Data(PEM.encode(label: "PRIVATE KEY", der: issued.key).utf8).write(to: key)
        return (certificate.path, key.path, dir)
    }

    func testAMissingCertificateFileIsNamed() throws {
        let own = try credentials()
        let stderr = try refuse(["--cert", "/nonexistent/cert.pem", "--key", own.key])
        XCTAssertTrue(stderr.contains("/nonexistent/cert.pem: no such file"), stderr)
    }

    func testACorruptCertificateIsNamedWithItsLineAndColumn() throws {
        let own = try credentials()
        let text = try String(contentsOfFile: own.certificate, encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[2] = String(lines[2].prefix(10)) + "*" + String(lines[2].dropFirst(11))
        let corrupt = own.dir.appendingPathComponent("corrupt.pem")
        try Data(lines.joined(separator: "\n").utf8).write(to: corrupt)
        let stderr = try refuse(["--cert", corrupt.path, "--key", own.key])
        XCTAssertTrue(stderr.contains("\(corrupt.path):3:11: \"*\" is not a base64 character"), stderr)
    }

    func testAKeyThatDoesNotMatchIsRefused() throws {
        let one = try credentials()
        let other = try credentials()
        let stderr = try refuse(["--cert", one.certificate, "--key", other.key])
        XCTAssertTrue(
            stderr.contains("\(other.key): the key does not match the certificate in \(one.certificate)"),
            stderr
        )
    }

    func testAnExpiredCertificateIsRefusedWithItsDate() throws {
        let own = try credentials(now: LocalAuthority.currentTime() - 800 * 86_400)
        let stderr = try refuse(["--cert", own.certificate, "--key", own.key])
        XCTAssertTrue(stderr.contains("\(own.certificate): the certificate expired on "), stderr)
    }

    func testAnEncryptedKeyIsRefusedWithWhatToDo() throws {
        let own = try credentials()
        let encrypted = own.dir.appendingPathComponent("encrypted.pem")
        let text =
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIBvTBXBgkqhkiG9w0BBQ0wSjApBgkqhkiG9w0BBQwwHAQI\n"
            + "-----END ENCRYPTED PRIVATE KEY-----\n"
        try Data(text.utf8).write(to: encrypted)
        let stderr = try refuse(["--cert", own.certificate, "--key", encrypted.path])
        XCTAssertTrue(stderr.contains("\(encrypted.path):1: the key is encrypted"), stderr)
    }

    func testWithoutOpenSSLHTTPSNamesThePackageAndPlainHTTPStillServes() throws {
        let missing = [
            "STUBSERVER_LIBSSL": "/nonexistent/libssl.so.3", "STUBSERVER_LIBCRYPTO": "/nonexistent/libcrypto.so.3",
        ]
        let stderr = try refuse(["--https"], environment: missing)
        XCTAssertTrue(stderr.contains("libssl3") && stderr.contains("apt-get install"), stderr)
        let stubs = folder(["a.json": #"{"request": {"path": "/a"}, "response": {"body": "a"}}"#])
        let plain = try StubServerProcess(["--dir", stubs.path, "--port", "0"], environment: missing)
        addTeardownBlock {
            plain.signal(SIGTERM)
            _ = plain.exitStatus()
        }
        let base = try XCTUnwrap(plain.baseURL())
        XCTAssertEqual(try fetch("\(base)/a").body, "a")
    }

    func testTheCAHomeMayNotBeInsideTheStubFolder() throws {
        let stubs = folder(["a.json": #"{"request": {"path": "/a"}, "response": {"body": "a"}}"#])
        let process = try StubServerProcess(
            ["--dir", stubs.path, "--port", "0", "--https"],
            environment: ["STUBSERVER_HOME": stubs.appendingPathComponent(".ca").path]
        )
        XCTAssertEqual(process.exitStatus(), 1)
        XCTAssertTrue(process.stderr.contains("is inside the stub folder"), process.stderr)
    }

    func testCertsInitShowAndTrust() throws {
        let home = self.home()
        let environment = ["STUBSERVER_HOME": home.path]
        func run(_ arguments: [String]) throws -> StubServerProcess {
            let process = try StubServerProcess(arguments, environment: environment)
            XCTAssertEqual(process.exitStatus(), 0, process.stderr)
            XCTAssertFalse((process.stdout + process.stderr).contains("PRIVATE KEY"), "the key was printed")
            return process
        }
        let made = try run(["certs", "init"])
        XCTAssertTrue(made.stdout.contains("made a local certificate authority in \(home.path)"), made.stdout)
        XCTAssertTrue(made.stdout.contains("stubserver certs trust ios-simulator"), made.stdout)
        let keyPath = home.appendingPathComponent("ca-key.pem").path
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: keyPath)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o777, 0o600)
        let caPath = home.appendingPathComponent("ca.pem").path
        let fingerprint = TLSTools.run("openssl", ["x509", "-in", caPath, "-noout", "-fingerprint", "-sha256"])
            .stdout.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let shown = try run(["certs", "show", "--cert-host", "mac.example"])
        XCTAssertTrue(shown.stdout.contains("SHA-256 fingerprint: \(try XCTUnwrap(fingerprint))"), shown.stdout)
        XCTAssertTrue(shown.stdout.contains("expires: 20"), shown.stdout)
        XCTAssertTrue(shown.stdout.contains("localhost, 127.0.0.1, ::1, 10.0.2.2"), shown.stdout)
        XCTAssertTrue(shown.stdout.contains("mac.example"), shown.stdout)
        let kept = try run(["certs", "init"])
        XCTAssertTrue(kept.stdout.contains("keeping the CA"), kept.stdout)
        XCTAssertTrue(kept.stdout.contains(fingerprint!), kept.stdout)
        let replaced = try run(["certs", "init", "--force"])
        XCTAssertTrue(replaced.stdout.contains("the old CA is gone"), replaced.stdout)
        XCTAssertFalse(replaced.stdout.contains(fingerprint!), replaced.stdout)
        let android = try run(["certs", "trust", "android"])
        XCTAssertTrue(android.stdout.contains("<certificates src=\"@raw/stubserver_ca\" />"), android.stdout)
        XCTAssertTrue(android.stdout.contains("10.0.2.2"), android.stdout)
        let ios = try run(["certs", "trust", "ios-simulator"])
        #if !os(macOS)
        XCTAssertTrue(ios.stdout.contains("xcrun simctl keychain booted add-root-cert \(caPath)"), ios.stdout)
        #endif
    }
}
