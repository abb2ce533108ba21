import CTLS
import SystemSupport

/// Why a server TLS context could not be made (the library is missing, or the certificate or
/// key was refused).
package struct TLSSetupError: Error, Sendable, CustomStringConvertible {
    package let description: String
}

/// One certificate chain and key, ready to serve: TLS 1.2 and 1.3, ALPN http/1.1 only,
/// resumption (tickets, and a session cache for TLS 1.2). Made once and shared by every loop.
package final class TLSServerContext: @unchecked Sendable {
    // @unchecked: OpenSSL contexts are safe to share between threads once configured; this one
    // is changed only before it serves (the name resolver is set at init of `ServerTLS`).
    let raw: OpaquePointer

    /// `chain`: DER certificates, the server's first; `key`: its private key, DER.
    package init(chain: [[UInt8]], key: [UInt8]) throws(TLSSetupError) {
        var error = [CChar](repeating: 0, count: 512)
        let lengths = chain.map(\.count)
        let made: OpaquePointer? = Self.withPointers(chain) { pointers in
            key.withUnsafeBufferPointer { keyBytes in
                ctls_server_new(
                    pointers,
                    lengths,
                    chain.count,
                    keyBytes.baseAddress,
                    keyBytes.count,
                    &error,
                    error.count
                )
            }
        }
        guard let made else { throw TLSSetupError(description: TLSContext.text(error)) }
        raw = made
    }

    deinit { ctls_server_free(raw) }

    /// Whether a server can use TLS here; why not (naming the package to install) otherwise.
    package static func availability() -> String? {
        TLSContext.availability()
    }

    private static func withPointers<R>(
        _ chain: [[UInt8]],
        _ body: (UnsafePointer<UnsafePointer<UInt8>?>) -> R
    ) -> R {
        // Each certificate's storage is pinned for the call: copied into one buffer that lives
        // as long as the pointers into it.
        let joined = chain.flatMap { $0 }
        return joined.withUnsafeBufferPointer { all in
            var pointers: [UnsafePointer<UInt8>?] = []
            var offset = 0
            for certificate in chain {
                pointers.append(all.baseAddress.map { $0 + offset })
                offset += certificate.count
            }
            return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
        }
    }
}

/// TLS for a listening server (`--https`): the main certificate, and SNI. A client that asks
/// for a name the main certificate lacks gets one issued for that name (by `issue`, the local
/// CA) when one may be: made on first use, kept for the server's life, at most
/// `mintedLimit` names (a stranger cannot make the server mint without end). With the user's
/// own certificate (`--cert`) there is no issuer and every client gets that certificate.
package final class ServerTLS: Sendable {
    package let primary: TLSServerContext
    private let coveredNames: Set<String>
    private let issue: (@Sendable (String) -> TLSServerContext?)?
    private let minted = Locked<[String: TLSServerContext]>([:])
    static let mintedLimit = 64

    package init(
        primary: TLSServerContext,
        coveredNames: [String],
        issue: (@Sendable (String) -> TLSServerContext?)? = nil
    ) {
        self.primary = primary
        self.coveredNames = Set(coveredNames.map { $0.lowercased() })
        self.issue = issue
        if issue != nil {
            // Unretained: the context is this object's and is freed with it.
            ctls_server_set_resolver(primary.raw, resolveName, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    /// TLS whose certificates come from an issuer (a certificate authority): one for `names`
    /// now, and one for each other name a client asks for, issued when first asked.
    /// `issue` returns a DER chain and key for the names it is given.
    package static func issuing(
        names: [String],
        _ issue: @escaping @Sendable ([String]) throws -> (chain: [[UInt8]], key: [UInt8])
    ) throws -> ServerTLS {
        let main = try issue(names)
        let primary = try TLSServerContext(chain: main.chain, key: main.key)
        return ServerTLS(primary: primary, coveredNames: names) { name in
            guard let issued = try? issue([name]) else { return nil }
            return try? TLSServerContext(chain: issued.chain, key: issued.key)
        }
    }

    /// The context for `name` (from SNI): nil keeps the main one.
    func context(forName rawName: String) -> TLSServerContext? {
        let name = rawName.lowercased()
        guard let issue, !coveredNames.contains(name), Self.isHostName(name) else { return nil }
        if let known = minted.withLock({ $0[name] }) { return known }
        guard minted.withLock({ $0.count }) < Self.mintedLimit, let made = issue(name) else { return nil }
        return minted.withLock { table in
            if let raced = table[name] { return raced }
            table[name] = made
            return made
        }
    }

    /// A DNS name (letters, digits, hyphens, dots; at most 253 characters), not an address.
    static func isHostName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 253, !name.hasPrefix("."), !name.hasSuffix(".") else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E
        } && !name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }
    }
}

private let resolveName: ctls_name_resolver = { name, info in
    guard let name, let info else { return nil }
    let tls = Unmanaged<ServerTLS>.fromOpaque(info).takeUnretainedValue()
    return tls.context(forName: String(cString: name))?.raw
}

extension TLSSession {
    /// A server session (the accepting side) for one connection; nil when OpenSSL cannot make one.
    package convenience init?(server context: TLSServerContext) {
        var error = [CChar](repeating: 0, count: 256)
        guard let made = ctls_server_session_new(context.raw, &error, error.count) else { return nil }
        self.init(raw: made)
    }
}
