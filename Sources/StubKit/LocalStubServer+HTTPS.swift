import Certificates
import Foundation
import HTTPSockets

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Security)
import Security
#endif

extension LocalStubServer {
    /// Which certificate authority issues a `LocalStubServer`'s certificate when it serves
    /// HTTPS (`https:` in its initialisers). The port speaks plain HTTP too.
    public struct HTTPS: Sendable {
        enum Authority: Sendable {
            case temporary
            case local
        }

        let authority: Authority

        /// A CA made for this server alone, in memory, gone with it: for unit tests, which trust
        /// exactly it through `urlSessionDelegate` (or `certificateAuthorityPEM`).
        public static let temporaryAuthority = HTTPS(authority: .temporary)
        /// The CA of the `stubserver` command (`$STUBSERVER_HOME`, default `~/.stubserver`; made
        /// if absent): for an app under XCUITest on a simulator that trusts it
        /// (`stubserver certs trust ios-simulator`).
        public static let localAuthority = HTTPS(authority: .local)
    }

    /// The server's TLS and the CA certificate (DER) that issued its certificate.
    static func makeTLS(_ https: HTTPS) throws(StubError) -> (tls: ServerTLS, authority: [UInt8]) {
        let authority: LocalAuthority
        do {
            switch https.authority {
            case .temporary:
                authority = try LocalAuthority.temporary()
            case .local:
                guard let home = CertificateHome.fromEnvironment() else {
                    throw CertificateError("set STUBSERVER_HOME (or HOME): the local CA needs a home")
                }
                authority = try LocalAuthority.load(from: home) ?? LocalAuthority.create(in: home)
            }
        } catch {
            throw StubError(message: "cannot serve HTTPS: \(error)")
        }
        if let missing = TLSServerContext.availability() {
            throw StubError(message: "cannot serve HTTPS: \(missing)")
        }
        do {
            let key = try SigningKey.generateP256()
            let tls = try ServerTLS.issuing(names: ServerNames.forListening(on: "127.0.0.1")) { names in
                let issued = try authority.issue(names: names, key: key)
                return (issued.chain, issued.key)
            }
            return (tls, authority.certificate.der)
        } catch {
            throw StubError(message: "cannot serve HTTPS: \(error)")
        }
    }

    /// The CA certificate that issued the server's certificate, PEM (nil without HTTPS): for a
    /// client that takes a CA file (curl's `--cacert`, `stubserver --proxy-ca`).
    public var certificateAuthorityPEM: String? {
        authorityCertificate.map { PEM.encode(label: "CERTIFICATE", der: $0) }
    }

    /// The CA certificate, DER (nil without HTTPS).
    public var certificateAuthorityDER: Data? {
        authorityCertificate.map { Data($0) }
    }

    #if canImport(Security)
    /// A `URLSession` delegate that trusts this server's CA, and only it, for its own host and
    /// port; every other challenge gets the default handling.
    public var urlSessionDelegate: (any URLSessionDelegate)? {
        guard let der = authorityCertificate,
            let anchor = SecCertificateCreateWithData(nil, Data(der) as CFData)
        else { return nil }
        return AuthorityTrust(anchor: anchor, port: port)
    }

    /// A session that trusts this server's CA (ephemeral unless `configuration` says otherwise).
    public func makeURLSession(configuration: URLSessionConfiguration = .ephemeral) -> URLSession {
        URLSession(configuration: configuration, delegate: urlSessionDelegate, delegateQueue: nil)
    }
    #endif
}

#if canImport(Security)
/// Trusts one CA for one local server. Apple platforms only: swift-corelibs-foundation (Linux)
/// never asks a delegate about server trust, so there the CA is handed over as PEM instead.
final class AuthorityTrust: NSObject, URLSessionDelegate, @unchecked Sendable {
    // @unchecked: both stored properties are immutable; SecCertificate is thread-safe.
    private let anchor: SecCertificate
    private let port: Int

    init(anchor: SecCertificate, port: Int) {
        self.anchor = anchor
        self.port = port
    }

    func urlSession(
        _ session: URLSession,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let space = challenge.protectionSpace
        guard space.authenticationMethod == NSURLAuthenticationMethodServerTrust, space.port == port,
            let trust = space.serverTrust
        else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        SecTrustSetAnchorCertificates(trust, [anchor] as CFArray)
        SecTrustSetAnchorCertificatesOnly(trust, true)
        var error: CFError?
        if SecTrustEvaluateWithError(trust, &error) {
            completionHandler(.useCredential, URLCredential(trust: trust))
        } else {
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }
}
#endif
