import HTTP1
import NativeStubs
@testable import StubEngine
import SystemSupport
import XCTest

/// `--forward-proxy` in the engine: the intercept list, who may use the proxy, where a proxy
/// client's request goes, and the answers to CONNECT.
final class ForwardProxyTests: XCTestCase {
    /// A request as the parser hands it over (CONNECT's authority, an absolute-form's), from `peer`.
    func proxyRequest(
        _ method: String,
        _ target: String,
        headers: [(String, String)] = [],
        peer: String = "127.0.0.1:4000"
    ) -> IncomingRequest {
        let host = target.hasPrefix("/") ? "api.example.com" : target
        let fields = HeaderFields([("Host", host)] + headers)
        guard method != "CONNECT" else {
            // As the parser hands it over when it accepts CONNECT (`acceptsConnect`).
            return IncomingRequest(
                method: method,
                target: target,
                path: "",
                headers: fields,
                peer: peer,
                authority: target
            )
        }
        return try! IncomingRequest.make(
            method: method,
            target: target,
            headers: fields,
            body: [],
            peer: peer,
            authority: host
        )
    }

    func testInterceptListMatchesExactNamesAndWildcardsBelowTheirBase() throws {
        let list = try InterceptList(["api.example.com", "*.Example.ORG", "127.0.0.1", "[::1]"])
        XCTAssertTrue(list.intercepts("api.example.com"))
        XCTAssertTrue(list.intercepts("API.Example.com"))
        XCTAssertFalse(list.intercepts("www.example.com"))
        XCTAssertFalse(list.intercepts("example.com"))
        XCTAssertTrue(list.intercepts("x.example.org"))
        XCTAssertTrue(list.intercepts("a.b.example.org"), "a wildcard covers every depth below its base")
        XCTAssertFalse(list.intercepts("example.org"), "not the base itself")
        XCTAssertFalse(list.intercepts("badexample.org"), "a label boundary, not a string suffix")
        XCTAssertTrue(list.intercepts("127.0.0.1"))
        XCTAssertTrue(list.intercepts("::1"))
        XCTAssertTrue(InterceptList().isEmpty)
    }

    func testInterceptListRefusesWhatIsNotAHost() {
        for bad in ["", "*", "*.", "**.example.com", "a..b", "api.example.com:443", "http://x", "x/y", "a b", "*.*.x"] {
            XCTAssertThrowsError(try InterceptList([bad]), bad) { error in
                XCTAssertTrue("\(error)".contains("\"\(bad)\""), "\(error)")
            }
        }
    }

    func testLoopbackClientsMayUseTheProxyOthersNeedTheToken() {
        let open = ForwardProxyAccess(token: nil)
        for peer in ["127.0.0.1:5000", "127.1.2.3:1", "[::1]:5000", "[::ffff:127.0.0.1]:9", ""] {
            XCTAssertNil(open.refusal(proxyRequest("CONNECT", "x:443", peer: peer)), peer)
        }
        let remote = proxyRequest("CONNECT", "x:443", peer: "192.168.1.20:5000")
        XCTAssertEqual(open.refusal(remote)?.status, 403, "no token: never an open proxy")
        XCTAssertTrue(open.refusal(remote)?.message.contains("--admin-token") ?? false)
        let guarded = ForwardProxyAccess(token: "s3cret")
        XCTAssertEqual(guarded.refusal(remote)?.status, 407)
        let basic = "Basic " + Base64.encode(Array("anyone:s3cret".utf8))
        for (credentials, allowed) in [
            ("Bearer s3cret", true), ("bearer  s3cret", true), (basic, true), ("Bearer s3cre", false),
            ("Basic " + Base64.encode(Array("s3cret:wrong".utf8)), false), ("Basic !!!", false), ("s3cret", false),
        ] {
            let request = proxyRequest(
                "CONNECT",
                "x:443",
                headers: [("Proxy-Authorization", credentials)],
                peer: "192.168.1.20:5000"
            )
            XCTAssertEqual(guarded.refusal(request) == nil, allowed, credentials)
        }
    }

    func testAProxyClientsRequestGoesToItsOwnHost() {
        let absolute = proxyRequest("GET", "http://api.example.com:8080/v1/me?x=1")
        XCTAssertEqual(ForwardProxy.origin(of: absolute)?.description, "http://api.example.com:8080")
        var tunnelled = proxyRequest("GET", "/v1/me")
        tunnelled.tunnelAuthority = "api.example.com:443"
        XCTAssertEqual(ForwardProxy.origin(of: tunnelled)?.description, "https://api.example.com")
        XCTAssertNil(ForwardProxy.origin(of: proxyRequest("GET", "/v1/me")), "origin-form is not a proxy request")
    }

    func testConnectIsATunnelInterceptedByHostAndJournaledAsOne() throws {
        let engine = Engine(
            stubs: [],
            options: {
                var options = Engine.Options()
                options.forwardProxy = ForwardProxy(intercept: try! InterceptList(["*.example.com"]))
                return options
            }()
        )
        for (authority, mode) in [("api.example.com:443", ConnectionTunnel.Mode.intercept), ("other.org:443", .relay)] {
            let outcome = engine.handle(proxyRequest("CONNECT", authority))
            guard case .tunnel(let tunnel) = outcome.kind, case .now(let response) = outcome.reply,
                case .tunnel(let delivered) = response.delivery
            else { return XCTFail("\(authority): not a tunnel") }
            XCTAssertTrue(tunnel === delivered)
            XCTAssertEqual(tunnel.mode, mode, authority)
            XCTAssertFalse(outcome.imitatesTheAPI, "no delay or CORS on a tunnel")
        }
        let entries = engine.journal.entries
        XCTAssertEqual(entries.compactMap { $0.tunnel?.authority }, ["api.example.com:443", "other.org:443"])
    }

    func testARemoteProxyClientIsRefusedAndItsCredentialsAreNotJournaled() throws {
        let engine = Engine(
            stubs: loadStubs(#"[{"request": {"host": "api.example.com"}, "response": {"body": "hi"}}]"#),
            options: {
                var options = Engine.Options()
                options.forwardProxy = ForwardProxy(access: ForwardProxyAccess(token: "T"))
                return options
            }()
        )
        var request = proxyRequest(
            "GET",
            "http://api.example.com/x",
            headers: [("Proxy-Authorization", "Bearer wrong")],
            peer: "10.0.0.9:1234"
        )
        let refused = engine.handle(request)
        XCTAssertEqual(refused.answered.prepared.status, 407)
        XCTAssertEqual(refused.answered.prepared.headers["Proxy-Authenticate"], "Basic realm=\"stubserver\"")
        request.headers.set("Proxy-Authorization", "Bearer T")
        let allowed = engine.handle(request)
        XCTAssertEqual(allowed.answered.prepared.status, 200)
        let entries = engine.journal.entries
        XCTAssertEqual(entries.count, 2)
        XCTAssertEqual(entries.map { $0.headers["Proxy-Authorization"] }, ["(not kept)", "(not kept)"])
        XCTAssertFalse(entries.contains { String(decoding: $0.head, as: UTF8.self).contains("Bearer") })
        XCTAssertEqual(entries.map { $0.host }, ["api.example.com", "api.example.com"])
    }
}
