import CTLS
import SystemSupport

/// Trust for https upstreams: the system's store plus, optionally, one PEM file of CA
/// certificates (`--proxy-ca`). Made once at start-up, so a CA file that cannot be read is an
/// error before the first request, and shared by every loop's sessions.
package final class TLSContext: @unchecked Sendable {
    // @unchecked: OpenSSL contexts are safe to share between threads once configured, and this
    // one is never changed after init.
    fileprivate let raw: OpaquePointer

    /// Throws why TLS is unavailable (no OpenSSL on this system, or not Linux) or the CA file
    /// is unusable.
    package init(caFile: String?) throws(ClientFailure) {
        var error = [CChar](repeating: 0, count: 512)
        let made: OpaquePointer? =
            if let caFile {
                caFile.withCString { ctls_context_new($0, &error, error.count) }
            } else {
                ctls_context_new(nil, &error, error.count)
            }
        guard let made else { throw .connect(Self.text(error)) }
        raw = made
    }

    deinit { ctls_context_free(raw) }

    /// Whether OpenSSL could be loaded here (Linux with libssl 3 or 1.1); why not, otherwise.
    package static func availability() -> String? {
        var error = [CChar](repeating: 0, count: 512)
        return ctls_load(&error, error.count) == 0 ? nil : text(error)
    }

    static func text(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The TLS context for https upstreams, made on first use (most servers never proxy to one, and
/// loading OpenSSL costs memory), or at once with `prepare()` to report a bad CA file early.
package final class TLSTrust: Sendable {
    package let caFile: String?
    private let made = Locked<Result<TLSContext, ClientFailure>?>(nil)

    package init(caFile: String? = nil) { self.caFile = caFile }

    /// The context, or why there is none.
    package func context() -> Result<TLSContext, ClientFailure> {
        made.withLock { made in
            if let made { return made }
            let result = Result { () throws(ClientFailure) in try TLSContext(caFile: caFile) }
            made = result
            return result
        }
    }

    /// Makes the context now; throws why it cannot be made.
    package func prepare() throws(ClientFailure) { _ = try context().get() }
}

/// One TLS client session over memory buffers: the connection feeds it ciphertext read from
/// the socket and sends the ciphertext it produces; plaintext goes in and comes out here.
/// Confined to its connection's loop.
package final class TLSSession {
    package enum Step: Equatable {
        case done
        case needInput
        case closed
        case failed(String)
    }

    private let raw: OpaquePointer
    private var error = [CChar](repeating: 0, count: 512)

    package init(raw: OpaquePointer) {
        self.raw = raw
    }

    package init(context: TLSContext, host: String) throws(ClientFailure) {
        var error = [CChar](repeating: 0, count: 512)
        guard let made = host.withCString({ ctls_session_new(context.raw, $0, &error, error.count) }) else {
            throw .connect("TLS: \(TLSContext.text(error))")
        }
        raw = made
    }

    deinit { ctls_session_free(raw) }

    /// Ciphertext from the peer.
    package func feed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.isEmpty || ctls_feed(raw, bytes.baseAddress, bytes.count) == Int32(CTLS_OK)
    }

    /// Appends the ciphertext waiting to go to the peer to `output`.
    package func takeOutgoing(into output: inout [UInt8]) {
        let count = ctls_outgoing(raw)
        guard count > 0 else { return }
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: count))
        let taken = output.withUnsafeMutableBytes { ctls_take_outgoing(raw, $0.baseAddress! + start, count) }
        output.removeLast(count - Int(taken))
    }

    /// Ends the session properly: our close_notify is written to the outgoing ciphertext.
    package func closeNotify() {
        ctls_close_notify(raw)
    }

    package func handshake() -> Step {
        let result = ctls_handshake(raw, &error, error.count)
        return step(Int(result))
    }

    /// Plaintext into `buffer`: its count, or why there is none.
    package func read(into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, step: Step) {
        let n = ctls_read(raw, buffer.baseAddress, buffer.count, &error, error.count)
        return n > 0 ? (Int(n), .done) : (0, step(Int(n)))
    }

    /// Plaintext to the peer; after the handshake all of it is taken.
    package func write(_ bytes: UnsafeRawBufferPointer) -> (count: Int, step: Step) {
        let n = ctls_write(raw, bytes.baseAddress, bytes.count, &error, error.count)
        return n > 0 ? (Int(n), .done) : (0, step(Int(n)))
    }

    private func step(_ code: Int) -> Step {
        switch code {
        case CTLS_OK: .done
        case CTLS_WANT_READ: .needInput
        case CTLS_CLOSED: .closed
        default: .failed(TLSContext.text(error))
        }
    }
}
