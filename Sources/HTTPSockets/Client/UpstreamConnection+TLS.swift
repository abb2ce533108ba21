import HTTP1

/// An upstream connection over TLS: the handshake, the request given to the session, and
/// ciphertext from the socket turned into the plaintext `receive` parses.
extension UpstreamConnection {
    func advanceHandshake() {
        guard let tls else { return }
        switch tls.handshake() {
        case .done:
            phase = exchange == nil ? .idle : .sending
            encrypt()
        case .needInput:
            break
        case .closed:
            fail(.connect("\(endpoint) ended the TLS session during the handshake"), retry: false)
            return
        case .failed(let reason):
            fail(.connect("\(endpoint): TLS handshake failed: \(reason)"), retry: false)
            return
        }
        tls.takeOutgoing(into: &outbound)
        flush()
    }

    /// Gives the request to the session (after the handshake it takes all of it).
    func encrypt() {
        guard let tls, !plaintext.isEmpty, phase != .handshaking else { return }
        var offset = 0
        while offset < plaintext.count {
            let (count, step) = plaintext.withUnsafeBytes { tls.write(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            if case .failed(let reason) = step {
                fail(.response("\(endpoint): TLS: \(reason)"), retry: false)
                return
            }
            guard count > 0 else { break }
            offset += count
        }
        plaintext.removeFirst(offset)
        tls.takeOutgoing(into: &outbound)
    }

    /// Ciphertext from the socket: the handshake goes on, or plaintext comes out and is parsed.
    func decrypt(_ bytes: UnsafeRawBufferPointer, _ tls: TLSSession) {
        guard tls.feed(bytes) else {
            fail(.response("\(endpoint): TLS: the session took no input"), retry: false)
            return
        }
        if phase == .handshaking {
            advanceHandshake()
            if phase == .handshaking || isClosed { return }
        }
        guard let plainBuffer else { return }
        reading: while !isClosed {
            let (count, step) = tls.read(into: plainBuffer)
            if count > 0 {
                receive(UnsafeRawBufferPointer(rebasing: plainBuffer[0..<count]))
                continue
            }
            switch step {
            case .done, .needInput:
                break reading
            case .closed:
                inputEnded()
                return
            case .failed(let reason):
                fail(.response("\(endpoint): TLS: \(reason)"), retry: false)
                return
            }
        }
        guard !isClosed else { return }
        tls.takeOutgoing(into: &outbound)
        flush()
    }
}
