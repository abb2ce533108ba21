#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

/// Where stubserver keeps its certificate authority: `$STUBSERVER_HOME`, else `~/.stubserver`.
/// Never inside a stub folder: the key must not travel with stubs that get shared.
package struct CertificateHome: Sendable, Equatable {
    package let path: String

    package init(path: String) {
        self.path = path
    }

    /// From the environment; nil when neither `STUBSERVER_HOME` nor `HOME` is set.
    package static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> CertificateHome?
    {
        if let home = environment["STUBSERVER_HOME"], !home.isEmpty { return CertificateHome(path: home) }
        guard let user = environment["HOME"], !user.isEmpty else { return nil }
        return CertificateHome(path: (user.hasSuffix("/") ? String(user.dropLast()) : user) + "/.stubserver")
    }

    package var certificatePath: String { path + "/ca.pem" }
    package var keyPath: String { path + "/ca-key.pem" }
}

/// The local certificate authority: made once on this machine (`certs init`, or the first
/// `--https`), trusted by the user's simulators, emulators and browsers, and issuing the
/// server's certificates at start, and one per name a client asks for (SNI) when needed.
package final class LocalAuthority: Sendable {
    /// Where it is kept; nil for a temporary one, which lives in memory only.
    package let home: CertificateHome?
    package let certificate: CertificateInfo
    private let key: SigningKey

    private init(home: CertificateHome?, certificate: CertificateInfo, key: SigningKey) {
        self.home = home
        self.certificate = certificate
        self.key = key
    }

    /// The CA in `home`, or nil when there is none yet; throws when it is there but unusable.
    package static func load(from home: CertificateHome) throws(CertificateError) -> LocalAuthority? {
        let hasCertificate = FileStatus(path: home.certificatePath) != nil
        let hasKey = FileStatus(path: home.keyPath) != nil
        guard hasCertificate || hasKey else { return nil }
        guard hasCertificate && hasKey else {
            let missing = hasCertificate ? home.keyPath : home.certificatePath
            throw CertificateError(
                "\(missing) is missing: the CA in \(home.path) is incomplete; "
                    + "run stubserver certs init --force to make a new one"
            )
        }
        let certificates = try CertificateFiles.certificates(in: home.certificatePath)
        let key = try CertificateFiles.key(in: home.keyPath)
        let info = certificates[0]
        guard info.isCertificateAuthority else {
            throw CertificateError("\(home.certificatePath): the certificate is not a CA certificate")
        }
        return LocalAuthority(home: home, certificate: info, key: SigningKey(pkcs8: key))
    }

    /// Makes a new CA in `home` (a new key, a new certificate) and writes it: the key with mode
    /// 0600. An existing CA is replaced only with `replacing`.
    package static func create(
        in home: CertificateHome,
        replacing: Bool = false,
        now: Int = currentTime()
    ) throws(CertificateError) -> LocalAuthority {
        if !replacing, FileStatus(path: home.certificatePath) != nil || FileStatus(path: home.keyPath) != nil {
            throw CertificateError("a CA already exists in \(home.path)")
        }
        let key = try SigningKey.generateP256()
        let name =
            "stubserver local CA (\(HostName.own().first ?? "this machine"), "
            + "\(UTCDate(epochSeconds: now).description.prefix(10)))"
        let der = try CertificateBuilder.authority(commonName: name, key: key, now: now)
        let info: CertificateInfo
        do {
            info = try CertificateInfo(der: der)
        } catch {
            throw CertificateError("the new CA certificate does not read back: \(error)")
        }
        do {
            try FileWriting.createPrivateFolder(home.path)
            try FileWriting.writePrivate(Array(key.pem.utf8), to: home.keyPath)
            try FileWriting.write(Array(PEM.encode(label: "CERTIFICATE", der: der).utf8), to: home.certificatePath)
        } catch {
            throw CertificateError(error.description)
        }
        return LocalAuthority(home: home, certificate: info, key: key)
    }

    /// A CA made for one server and never written anywhere (StubKit's `temporaryAuthority`): a
    /// test trusts exactly it, and no key outlives the process.
    package static func temporary(now: Int = currentTime()) throws(CertificateError) -> LocalAuthority {
        let key = try SigningKey.generateP256()
        let der = try CertificateBuilder.authority(commonName: "stubserver temporary CA", key: key, now: now)
        do {
            return LocalAuthority(home: nil, certificate: try CertificateInfo(der: der), key: key)
        } catch {
            throw CertificateError("the new CA certificate does not read back: \(error)")
        }
    }

    /// A server certificate for `names` with a key of its own: a new key unless `key` is given
    /// (one key serves every certificate a server issues for itself).
    package func issue(
        names: [String],
        key leafKey: SigningKey? = nil,
        now: Int = currentTime()
    ) throws(CertificateError) -> ServerCredentials {
        let leafKey = if let leafKey { leafKey } else { try SigningKey.generateP256() }
        let der = try CertificateBuilder.leaf(
            names: names,
            publicKey: leafKey.publicKeyInfo(),
            authority: certificate,
            authorityKey: key,
            now: now
        )
        do {
            let leaf = try CertificateInfo(der: der)
            return ServerCredentials(chain: [der], key: leafKey.pkcs8, leaf: leaf)
        } catch {
            throw CertificateError("the new server certificate does not read back: \(error)")
        }
    }

    package static func currentTime() -> Int {
        Int(Date().timeIntervalSince1970)
    }
}

/// A certificate chain (DER, the server's own first) and its private key (DER): what a TLS
/// server context is made from.
package struct ServerCredentials: Sendable {
    package let chain: [[UInt8]]
    package let key: [UInt8]
    package let leaf: CertificateInfo

    package init(chain: [[UInt8]], key: [UInt8], leaf: CertificateInfo) {
        self.chain = chain
        self.key = key
        self.leaf = leaf
    }
}
