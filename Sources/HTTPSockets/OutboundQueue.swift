/// Bytes waiting to be written to one connection.
///
/// Small things (heads, small bodies, pipelined responses) are copied into one scratch buffer,
/// so head and body go in one `send`. Large bodies are queued by reference (the stub's own
/// array, never copied) and sent beside the head with one `sendmsg`. Scratch buffers come from
/// the loop's pool and go back after a full flush: a keep-alive connection allocates nothing per
/// response, and an idle one holds no buffer (10,000 idle connections once held 40 MiB of them).
struct OutboundQueue {
    /// Bodies up to this size are copied next to their head; larger ones are sent by reference.
    static let copyThreshold = 16 * 1024

    private var chunks: [[UInt8]] = []
    private var offset = 0
    private var tailIsScratch = false
    private let pool: ScratchPool
    private(set) var byteCount = 0
    /// TLS: ciphertext made from the queue's plaintext, or written by the session itself
    /// (handshake, alerts, tickets), not yet sent. It goes out before more plaintext is sealed,
    /// and `byteCount` counts it, so "empty" means nothing is owed to the socket either way.
    private var sealed: [UInt8] = []
    private var sealedOffset = 0
    /// Bytes handed to the socket so far: progress, whatever the bytes were.
    private(set) var bytesWritten = 0
    /// Plaintext sealed at a time: a few TLS records.
    static let sealBatch = 64 * 1024

    var isEmpty: Bool { byteCount == 0 }

    init(pool: ScratchPool) {
        self.pool = pool
    }

    mutating func append<C: Collection>(copying bytes: C) where C.Element == UInt8 {
        guard !bytes.isEmpty else { return }
        if !tailIsScratch {
            chunks.append(pool.take())
            tailIsScratch = true
        }
        chunks[chunks.count - 1].append(contentsOf: bytes)
        byteCount += bytes.count
    }

    /// Queues a body: copied when small, referenced when large.
    mutating func append(body: [UInt8]) {
        if body.count <= Self.copyThreshold {
            append(copying: body)
        } else {
            chunks.append(body)
            tailIsScratch = false
            byteCount += body.count
        }
    }

    mutating func removeAll() {
        chunks.removeAll()
        offset = 0
        tailIsScratch = false
        byteCount = 0
        sealed = []
        sealedOffset = 0
    }

    /// Takes what a TLS session wrote on its own (handshake messages, alerts, tickets).
    mutating func appendCiphertext(from session: TLSSession) {
        let before = sealed.count
        session.takeOutgoing(into: &sealed)
        byteCount += sealed.count - before
    }

    /// Bytes that go out as they are, never sealed: the `200` that answers an intercepted
    /// `CONNECT`, queued (on an empty queue) just before TLS starts on the connection.
    mutating func appendUnsealed(_ bytes: [UInt8]) {
        sealed.append(contentsOf: bytes)
        byteCount += bytes.count
    }

    /// A failed TLS session: plaintext still queued can no longer be sealed; ciphertext stays.
    mutating func dropPlaintext() {
        chunks.removeAll()
        offset = 0
        tailIsScratch = false
        byteCount = sealed.count - sealedOffset
    }

    enum FlushResult { case done, blocked, failed }

    /// Writes until done or the socket would block; through `session` (sealing the plaintext
    /// as it goes) on a TLS connection.
    mutating func flush(to fd: Int32, through session: TLSSession?) -> FlushResult {
        if session == nil && sealed.isEmpty { return flushPlain(to: fd) }
        return flushSealed(fd, session)
    }

    private mutating func flushSealed(_ fd: Int32, _ session: TLSSession?) -> FlushResult {
        while true {
            while sealedOffset < sealed.count {
                let result = sealed.withUnsafeBytes {
                    Posix.send(fd, UnsafeRawBufferPointer(rebasing: $0[sealedOffset...]))
                }
                switch result {
                case .bytes(let n):
                    sealedOffset += n
                    byteCount -= n
                    bytesWritten += n
                case .wouldBlock: return .blocked
                case .endOfFile, .failed: return .failed
                }
            }
            // All written: the buffer is kept for the next records unless a burst made it huge.
            if sealed.capacity > 4 * Self.sealBatch { sealed = [] } else { sealed.removeAll(keepingCapacity: true) }
            sealedOffset = 0
            guard let session, !chunks.isEmpty else { return .done }
            var taken = 0
            while taken < Self.sealBatch, !chunks.isEmpty {
                let piece = min(chunks[0].count - offset, Self.sealBatch - taken)
                let (count, _) = chunks[0].withUnsafeBytes {
                    session.write(UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + piece)]))
                }
                // After the handshake the session takes all it is given; anything else has failed.
                guard count == piece else { return .failed }
                consume(count)
                taken += count
            }
            appendCiphertext(from: session)
        }
    }

    /// Writes until done or the socket would block.
    private mutating func flushPlain(to fd: Int32) -> FlushResult {
        while !chunks.isEmpty {
            let result: IOResult
            if chunks.count >= 2 {
                result = chunks[0].withUnsafeBytes { a in
                    chunks[1].withUnsafeBytes { b in
                        Posix.send(fd, UnsafeRawBufferPointer(rebasing: a[offset...]), b)
                    }
                }
            } else {
                result = chunks[0].withUnsafeBytes { Posix.send(fd, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            }
            switch result {
            case .bytes(let n):
                consume(n)
                bytesWritten += n
            case .wouldBlock: return .blocked
            case .endOfFile, .failed: return .failed
            }
        }
        return .done
    }

    private mutating func consume(_ count: Int) {
        var n = count
        byteCount -= n
        while n > 0, !chunks.isEmpty {
            let available = chunks[0].count - offset
            if n < available {
                offset += n
                return
            }
            n -= available
            offset = 0
            let done = chunks.removeFirst()
            if chunks.isEmpty {
                if tailIsScratch { pool.give(consume done) }
                tailIsScratch = false
            }
        }
    }
}

/// An event loop's spare scratch buffers, for its connections' output (confined to the loop).
final class ScratchPool {
    /// Unchecked: only `take` and `give` touch it, on the loop's thread, and neither calls out
    /// while it does, so no access can overlap another. Checked, the three accesses of every
    /// response cost some 270 instructions in the runtime's exclusivity tracking.
    @exclusivity(unchecked) private var buffers: [[UInt8]] = []
    /// Enough for every connection writing at the same moment on a busy loop; more are freed.
    static let kept = 256

    func take() -> [UInt8] {
        if let buffer = buffers.popLast() { return buffer }
        var fresh: [UInt8] = []
        fresh.reserveCapacity(4096)
        return fresh
    }

    /// `consuming`: the caller's buffer moves in. Borrowed, the local copy that empties it was
    /// a second reference, so `removeAll(keepingCapacity:)` allocated a fresh 4 KiB buffer (and
    /// the old one was freed) for every response.
    func give(_ buffer: consuming [UInt8]) {
        // A burst may have made one huge: let it go rather than keep it.
        guard buffers.count < Self.kept, buffer.capacity <= 256 * 1024 else { return }
        buffer.removeAll(keepingCapacity: true)
        buffers.append(buffer)
    }
}
