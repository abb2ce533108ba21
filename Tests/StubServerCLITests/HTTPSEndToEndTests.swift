import Certificates
import Foundation
import TestSupport
import XCTest

/// `--https` through the binary, with real TLS clients (curl, Python's ssl, `openssl s_client`):
/// verification by name and address against the local CA, plain HTTP on the same port, TLS 1.1
/// refused, ALPN never h2, resumption, and every family of serving over TLS.
final class HTTPSEndToEndTests: XCTestCase {
    struct Served {
        let process: StubServerProcess
        let port: Int
        let ca: String
        let directory: URL
        var https: String { "https://127.0.0.1:\(port)" }
        var http: String { "http://127.0.0.1:\(port)" }
    }

    /// What the server's TLS negotiates with a client that offers everything. Linux serves
    /// through OpenSSL: TLS 1.3, and ALPN answered with `http/1.1`. Apple platforms serve through
    /// Secure Transport, which has no TLS 1.3 and whose server side never answers ALPN, so a
    /// client speaks HTTP/1.1 there without having negotiated it (h2 is never selected on
    /// either).
    #if canImport(Darwin)
    static let newestVersion = "TLSv1.2"
    static let offeredALPNAnswer = "None"
    static let resumedVersions = ["TLSv1.2"]
    #else
    static let newestVersion = "TLSv1.3"
    static let offeredALPNAnswer = "http/1.1"
    static let resumedVersions = ["TLSv1.2", "TLSv1.3"]
    #endif

    static let stubs = [
        "hello.json": #"{"request": {"method": "GET", "path": "/hello"}, "response": {"body": {"hello": "tls"}}}"#,
        "reset.json": #"{"request": {"path": "/reset"}, "response": {"fault": "reset"}}"#,
        "garbage.json": #"{"request": {"path": "/garbage"}, "response": {"fault": "garbage"}}"#,
        "slow.json":
            #"{"request": {"path": "/slow"}, "#
            + #""response": {"body": "0123456789", "dribble": {"chunks": 5, "durationMs": 500}}}"#,
    ]

    override func setUpWithError() throws {
        for tool in ["curl", "openssl", "python3"] where !TLSTools.available(tool) {
            throw XCTSkip("\(tool) is not installed")
        }
    }

    /// A home of its own for the CA (tests run in parallel and share no folders).
    func home() -> URL { folder([:]) }

    func serve(_ files: [String: String] = stubs, _ extra: [String] = [], home: URL? = nil) throws -> Served {
        let directory = folder(files)
        let home = home ?? self.home()
        let process = try StubServerProcess(
            ["--dir", directory.path, "--port", "0", "--https"] + extra,
            environment: ["STUBSERVER_HOME": home.path]
        )
        addTeardownBlock {
            process.signal(SIGTERM)
            _ = process.exitStatus()
        }
        let ready = try XCTUnwrap(process.readyLine())
        XCTAssertTrue(ready.contains("https://127.0.0.1:") && ready.contains(" and http://127.0.0.1:"), ready)
        let base = try XCTUnwrap(process.baseURL(), ready)
        let port = try XCTUnwrap(Int(base.split(separator: ":").last!))
        return Served(
            process: process,
            port: port,
            ca: home.appendingPathComponent("ca.pem").path,
            directory: directory
        )
    }

    func testCurlPythonAndOpenSSLVerifyByNameAndAddress() throws {
        let server = try serve()
        for host in ["localhost", "127.0.0.1"] {
            let curl = TLSTools.curl("https://\(host):\(server.port)/hello", ca: server.ca)
            XCTAssertEqual(curl.status, 0, curl.all)
            XCTAssertEqual(curl.stdout, #"{"hello":"tls"}"#)
        }
        let python = TLSTools.python(
            """
            import socket, ssl, sys
            port, ca = int(sys.argv[1]), sys.argv[2]
            for name in ("localhost", "127.0.0.1"):
                context = ssl.create_default_context(cafile=ca)
                context.set_alpn_protocols(["h2", "http/1.1"])
                with socket.create_connection(("127.0.0.1", port)) as raw:
                    with context.wrap_socket(raw, server_hostname=name) as tls:
                        version, alpn = tls.version(), tls.selected_alpn_protocol()
                        tls.sendall(b"GET /hello HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n")
                        data = b""
                        while True:
                            chunk = tls.recv(4096)
                            if not chunk: break
                            data += chunk
                        print(name, version, alpn, data.split(b"\\r\\n")[0].decode())
            """,
            port: server.port,
            ca: server.ca
        )
        XCTAssertEqual(python.status, 0, python.all)
        for name in ["localhost", "127.0.0.1"] {
            let line = "\(name) \(Self.newestVersion) \(Self.offeredALPNAnswer) HTTP/1.1 200 OK"
            XCTAssertTrue(python.stdout.contains(line), python.all)
        }
        let byName = TLSTools.sClient(
            port: server.port,
            ca: server.ca,
            ["-servername", "localhost", "-verify_hostname", "localhost"]
        )
        XCTAssertTrue(byName.stdout.contains("Verify return code: 0 (ok)"), byName.all)
        let byAddress = TLSTools.sClient(port: server.port, ca: server.ca, ["-verify_ip", "127.0.0.1"])
        XCTAssertTrue(byAddress.stdout.contains("Verify return code: 0 (ok)"), byAddress.all)
        // The same port still speaks plain HTTP.
        let plain = try fetch("\(server.http)/hello")
        XCTAssertEqual(plain.status, 200)
        XCTAssertEqual(plain.body, #"{"hello":"tls"}"#)
    }

    func testTLS11IsRefusedTLS12IsServedAndALPNIsNeverH2() throws {
        let server = try serve()
        // SECLEVEL=0 lets this client offer TLS 1.1 at all: the refusal must be the server's.
        let old = TLSTools.sClient(port: server.port, ca: server.ca, ["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"])
        XCTAssertNotEqual(old.status, 0, old.all)
        XCTAssertTrue(old.all.contains("alert protocol version"), old.all)
        XCTAssertTrue(old.stdout.contains("Cipher is (NONE)"), old.all)
        let v12 = TLSTools.sClient(port: server.port, ca: server.ca, ["-tls1_2", "-servername", "localhost"])
        XCTAssertTrue(v12.stdout.contains("Verify return code: 0 (ok)"), v12.all)
        XCTAssertTrue(v12.stdout.contains("TLSv1.2"), v12.all)
        let h2Only = TLSTools.sClient(port: server.port, ca: server.ca, ["-alpn", "h2"])
        XCTAssertTrue(h2Only.stdout.contains("No ALPN negotiated"), h2Only.all)
        let both = TLSTools.sClient(port: server.port, ca: server.ca, ["-alpn", "h2,http/1.1"])
        #if canImport(Darwin)
        XCTAssertTrue(both.stdout.contains("No ALPN negotiated"), both.all)
        #else
        XCTAssertTrue(both.stdout.contains("ALPN protocol: http/1.1"), both.all)
        #endif
        let curl = TLSTools.curl("\(server.https)/hello", ca: server.ca, extra: ["--http2", "-w", " %{http_version}"])
        XCTAssertEqual(curl.stdout, #"{"hello":"tls"} 1.1"#, curl.all)
    }

    func testTheLeafPassesOpenSSLVerifyAndCarriesTheNamesUsageAndLifetime() throws {
        let server = try serve(Self.stubs, ["--cert-host", "phone-test.example"])
        let shown = TLSTools.sClient(port: server.port, ca: server.ca, ["-showcerts"])
        let pem = try XCTUnwrap(
            shown.stdout.range(of: "-----BEGIN CERTIFICATE-----").flatMap { start in
                shown.stdout.range(of: "-----END CERTIFICATE-----", range: start.upperBound..<shown.stdout.endIndex)
                    .map { String(shown.stdout[start.lowerBound..<$0.upperBound]) + "\n" }
            },
            shown.all
        )
        let leafFile = folder(["leaf.pem": pem]).appendingPathComponent("leaf.pem").path
        let verify = TLSTools.run("openssl", ["verify", "-CAfile", server.ca, leafFile])
        XCTAssertEqual(verify.status, 0, verify.all)
        XCTAssertTrue(verify.stdout.contains("OK"), verify.all)
        let leaf = try XCTUnwrap(try CertificateFiles.certificates(in: leafFile).first)
        for name in ["localhost", "10.0.2.2", "phone-test.example"] {
            XCTAssertTrue(leaf.dnsNames.contains(name) || leaf.ipAddresses.contains(name), "\(name) in \(leaf.names)")
        }
        for address in ["127.0.0.1", "::1", "10.0.2.2"] {
            XCTAssertTrue(leaf.ipAddresses.contains(address), "\(address) in \(leaf.names)")
        }
        XCTAssertEqual(leaf.extendedKeyUsages, ["1.3.6.1.5.5.7.3.1"])
        XCTAssertFalse(leaf.isCertificateAuthority)
        XCTAssertLessThanOrEqual(leaf.notAfter.epochSeconds - leaf.notBefore.epochSeconds, 397 * 86_400)
        let text = TLSTools.run("openssl", ["x509", "-in", leafFile, "-noout", "-text"])
        XCTAssertTrue(text.stdout.contains("TLS Web Server Authentication"), text.all)
        XCTAssertTrue(text.stdout.contains("DNS:localhost"), text.all)
        XCTAssertTrue(text.stdout.contains("IP Address:10.0.2.2"), text.all)
    }

    func testSessionsResumeOverTLS12AndTLS13() throws {
        let server = try serve()
        let versions = Self.resumedVersions.map { "ssl.TLSVersion.\($0.replacingOccurrences(of: ".", with: "_"))" }
        let python = TLSTools.python(
            """
            import socket, ssl, sys
            port, ca = int(sys.argv[1]), sys.argv[2]
            for version in (\(versions.joined(separator: ", ")),):
                context = ssl.create_default_context(cafile=ca)
                context.minimum_version = context.maximum_version = version
                session = None
                for attempt in range(2):
                    with socket.create_connection(("127.0.0.1", port)) as raw:
                        with context.wrap_socket(raw, server_hostname="localhost", session=session) as tls:
                            version, reused = tls.version(), tls.session_reused
                            tls.sendall(b"GET /hello HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n")
                            while tls.recv(4096): pass
                            if attempt == 1: print(version, "reused" if reused else "new")
                            session = tls.session
            """,
            port: server.port,
            ca: server.ca
        )
        XCTAssertEqual(python.status, 0, python.all)
        for version in Self.resumedVersions {
            XCTAssertTrue(python.stdout.contains("\(version) reused"), python.all)
        }
    }

    func testAdminInspectorFaultsDribbleAndReloadOverTLS() throws {
        let server = try serve()
        let admin = TLSTools.curl("\(server.https)/__admin/stubs", ca: server.ca, extra: ["-w", " %{http_code}"])
        XCTAssertTrue(admin.stdout.hasSuffix(" 200"), admin.all)
        XCTAssertTrue(admin.stdout.contains("/hello"), admin.all)
        let inspector = TLSTools.curl(
            "https://localhost:\(server.port)/__admin/ui",
            ca: server.ca,
            extra: ["-w", " %{http_code}"]
        )
        XCTAssertTrue(
            inspector.stdout.hasSuffix(" 200") && inspector.stdout.contains("<html"),
            String(inspector.all.prefix(300))
        )
        // A reset is a TCP reset: curl reports a receive failure, not a TLS or HTTP answer.
        let reset = TLSTools.curl("\(server.https)/reset", ca: server.ca)
        XCTAssertTrue([35, 52, 56].contains(reset.status), "curl status \(reset.status): \(reset.all)")
        // Garbage is garbage inside TLS: the session is fine, the HTTP inside is not.
        let garbage = TLSTools.curl("\(server.https)/garbage", ca: server.ca)
        XCTAssertTrue([1, 8].contains(garbage.status), "curl status \(garbage.status): \(garbage.all)")
        let started = Date()
        let slow = TLSTools.curl("\(server.https)/slow", ca: server.ca)
        XCTAssertEqual(slow.stdout, "0123456789", slow.all)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.35)
        // Hot reload: the changed stub answers over TLS.
        let changed = #"{"request": {"method": "GET", "path": "/hello"}, "response": {"body": {"hello": "again"}}}"#
        try Data(changed.utf8).write(to: server.directory.appendingPathComponent("hello.json"))
        XCTAssertTrue(server.process.waitFor("the reload") { server.process.stdout.contains("reloaded") })
        let again = TLSTools.curl("\(server.https)/hello", ca: server.ca)
        XCTAssertEqual(again.stdout, #"{"hello":"again"}"#, again.all)
    }

    func testProxyAndRecordOverTLS() throws {
        let upstreamHome = home()
        let upstream = try StubServerProcess(
            ["--dir", folder(Self.stubs).path, "--port", "0"],
            environment: ["STUBSERVER_HOME": upstreamHome.path]
        )
        addTeardownBlock {
            upstream.signal(SIGTERM)
            _ = upstream.exitStatus()
        }
        let upstreamURL = try XCTUnwrap(upstream.baseURL())
        let proxying = try serve(
            ["other.json": #"{"request": {"path": "/other"}, "response": {"body": "x"}}"#],
            ["--proxy", upstreamURL]
        )
        let forwarded = TLSTools.curl("\(proxying.https)/hello", ca: proxying.ca)
        XCTAssertEqual(forwarded.stdout, #"{"hello":"tls"}"#, forwarded.all)
        let out = folder([:])
        let home = self.home()
        let recorder = try StubServerProcess(
            ["record", "--proxy", upstreamURL, "--out", out.path, "--port", "0", "--https"],
            environment: ["STUBSERVER_HOME": home.path]
        )
        addTeardownBlock {
            recorder.signal(SIGTERM)
            _ = recorder.exitStatus()
        }
        let base = try XCTUnwrap(recorder.baseURL())
        let port = try XCTUnwrap(Int(base.split(separator: ":").last!))
        let recorded = TLSTools.curl("https://localhost:\(port)/hello", ca: home.appendingPathComponent("ca.pem").path)
        XCTAssertEqual(recorded.stdout, #"{"hello":"tls"}"#, recorded.all)
        recorder.signal(SIGTERM)
        XCTAssertEqual(recorder.exitStatus(), 0, recorder.stderr)
        let written = try FileManager.default.subpathsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".json") }
        XCTAssertFalse(written.isEmpty, recorder.stdout + recorder.stderr)
    }

    func testAStalledOrGarbageHandshakeCostsOneSlotUntilTheHeaderTimeout() throws {
        let server = try serve(Self.stubs, ["--header-timeout", "1"])
        let stalled = try WireConnection(port: server.port)
        stalled.send([0x16, 0x03, 0x01])
        let garbage = try WireConnection(port: server.port)
        garbage.send([0x16] + Array(repeating: 0x41, count: 300))
        // Another client is served meanwhile.
        let curl = TLSTools.curl("\(server.https)/hello", ca: server.ca)
        XCTAssertEqual(curl.stdout, #"{"hello":"tls"}"#, curl.all)
        // The garbage gets an alert at most, then the end; the stalled one ends at the timeout.
        let garbageEnd = garbage.readUntilClose(timeoutMilliseconds: 5_000)
        XCTAssertTrue(garbageEnd.closed)
        XCTAssertFalse(String(decoding: garbageEnd.bytes, as: UTF8.self).contains("HTTP/1.1"))
        let started = Date()
        let stalledEnd = stalled.readUntilClose(timeoutMilliseconds: 5_000)
        XCTAssertTrue(stalledEnd.closed, "the stalled handshake was not cut off")
        XCTAssertLessThan(Date().timeIntervalSince(started), 4.5)
    }
}
