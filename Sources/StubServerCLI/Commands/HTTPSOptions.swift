#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Certificates
import HTTPSockets
import SystemSupport

/// `--https`, `--cert`/`--key` and `--cert-host`: TLS beside plain HTTP on the listening port.
struct HTTPSOptions: Sendable, Equatable {
    var enabled = false
    var certificateFile: String?
    var keyFile: String?
    var certificateHosts: [String] = []

    static let options: [Option] = [
        .flag(
            "--https",
            "also speak TLS on the port (https:// and http:// on one port), with a certificate from the local CA "
                + "(docs/https.md)"
        ),
        .value(
            "--cert",
            "FILE",
            "serve your own certificate (PEM, chain allowed) instead of one from the local CA; implies --https"
        ),
        .value("--key", "FILE", "the private key of --cert (PEM)"),
        .value(
            "--cert-host",
            "NAME",
            "another name (or address) the certificate carries, such as mac.local",
            repeatable: true
        ),
    ]

    init() {}

    init(_ a: ParsedArguments) throws(UsageError) {
        certificateFile = try a.nonEmpty("--cert", "a certificate file (PEM)")
        keyFile = try a.nonEmpty("--key", "a private key file (PEM)")
        if (certificateFile == nil) != (keyFile == nil) {
            throw UsageError(
                certificateFile == nil
                    ? "--key needs --cert, the certificate it belongs to" : "--cert needs --key, its private key"
            )
        }
        certificateHosts = try a.all("--cert-host").map { (value: String) throws(UsageError) -> String in
            let name = value.lowercased()
            guard !name.isEmpty, !name.contains("/"), !name.contains(" "),
                IPAddressText.parse(name) != nil || !name.contains(":")
            else {
                throw UsageError(
                    "--cert-host takes a host name or an address, such as mac.local or 192.168.1.20, not \"\(value)\""
                )
            }
            return name
        }
        enabled = a.has("--https") || certificateFile != nil
        if !certificateHosts.isEmpty {
            guard enabled else {
                throw UsageError("--cert-host names go into the certificate --https makes; add --https")
            }
            guard certificateFile == nil else {
                throw UsageError("--cert-host applies to the local CA's certificate, not to --cert's")
            }
        }
    }
}

/// The server's TLS, made before it listens: from the local CA (made on first use), or the
/// user's own certificate. Any failure is said with the file and what is wrong, and nothing
/// is served half-configured.
enum HTTPSSetup {
    struct Failure: Error {
        let message: String
    }

    /// What the server needs, and what to tell the user about it.
    struct Prepared {
        let tls: ServerTLS
        let notes: [String]
    }

    static func prepare(
        _ options: HTTPSOptions,
        listeningOn host: String,
        stubFolder: String?
    ) throws(Failure) -> Prepared {
        if let missing = TLSServerContext.availability() {
            throw Failure(message: "--https needs OpenSSL's libssl, which is not available: \(missing)")
        }
        if let certificateFile = options.certificateFile, let keyFile = options.keyFile {
            return try ownCertificate(certificateFile, keyFile)
        }
        guard let home = CertificateHome.fromEnvironment() else {
            throw Failure(message: "--https needs a home for its CA: set STUBSERVER_HOME (or HOME)")
        }
        if let stubFolder, isInside(home.path, stubFolder) {
            throw Failure(
                message: "the CA's home \(home.path) is inside the stub folder \(stubFolder): "
                    + "keep its private key out of folders that get shared (set STUBSERVER_HOME elsewhere)"
            )
        }
        var notes: [String] = []
        let authority: LocalAuthority
        do {
            if let existing = try LocalAuthority.load(from: home) {
                authority = existing
            } else {
                authority = try LocalAuthority.create(in: home)
                notes.append(
                    "made a local certificate authority in \(home.path) (once); trust it on your devices: "
                        + "stubserver certs trust ios-simulator | android (docs/https.md)"
                )
            }
        } catch {
            throw Failure(message: error.description)
        }
        let names = ServerNames.forListening(on: host, extra: options.certificateHosts)
        do {
            // One key for the server's certificates: made once, never written anywhere.
            let key = try SigningKey.generateP256()
            let tls = try ServerTLS.issuing(names: names) { names in
                let issued = try authority.issue(names: names, key: key)
                return (issued.chain, issued.key)
            }
            return Prepared(tls: tls, notes: notes)
        } catch let error as CertificateError {
            throw Failure(message: "cannot issue the server's certificate: \(error)")
        } catch {
            throw Failure(message: "cannot serve the local CA's certificate: \(error)")
        }
    }

    private static func ownCertificate(_ certificateFile: String, _ keyFile: String) throws(Failure) -> Prepared {
        let credentials: ServerCredentials
        do {
            credentials = try CertificateFiles.serverCredentials(certificate: certificateFile, key: keyFile)
        } catch {
            throw Failure(message: error.description)
        }
        let primary: TLSServerContext
        do {
            primary = try context(credentials)
        } catch {
            if error.description.contains("does not match") {
                throw Failure(message: "\(keyFile): the key does not match the certificate in \(certificateFile)")
            }
            throw Failure(message: "cannot serve \(certificateFile) with \(keyFile): \(error)")
        }
        var notes: [String] = []
        let days = (credentials.leaf.notAfter.epochSeconds - LocalAuthority.currentTime()) / 86_400
        if days < 14 { notes.append("\(certificateFile) expires in \(days) days (\(credentials.leaf.notAfter))") }
        return Prepared(tls: ServerTLS(primary: primary, coveredNames: credentials.leaf.names), notes: notes)
    }

    private static func context(_ credentials: ServerCredentials) throws(TLSSetupError) -> TLSServerContext {
        try TLSServerContext(chain: credentials.chain, key: credentials.key)
    }

    /// Whether `path` is `folder` or inside it (both made absolute, `..` and links not resolved).
    static func isInside(_ path: String, _ folder: String) -> Bool {
        let current = FileManager.default.currentDirectoryPath
        func absolute(_ p: String) -> String {
            let full = p.hasPrefix("/") ? p : current + "/" + p
            var parts: [Substring] = []
            for part in full.split(separator: "/") where part != "." {
                if part == ".." { _ = parts.popLast() } else { parts.append(part) }
            }
            return "/" + parts.joined(separator: "/")
        }
        let a = absolute(path)
        let b = absolute(folder)
        return a == b || a.hasPrefix(b == "/" ? "/" : b + "/")
    }
}
