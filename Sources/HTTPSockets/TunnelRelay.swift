import HTTP1

/// A blind `CONNECT` tunnel's state: the client's connection in the `.tunneling` phase plus one
/// upstream socket on the same loop, and a leg for each direction (`RelayLeg`). The moving of
/// bytes is in `ConnectionRelaying.swift`, the opening and closing in `ConnectionTunnels.swift`.
final class TunnelRelay {
    let tunnel: ConnectionTunnel
    let startedAt: Int64
    var upstreamFD: Int32 = -1
    var connecting = true
    var untried: ArraySlice<SocketAddress> = []
    var registeredInterest: Interest = []
    /// Client to upstream (the bytes behind the `CONNECT` first), and upstream to client (the
    /// `200` head first).
    var up = RelayLeg()
    var down = RelayLeg()
    /// The `CONNECT` exchange: how a `502` goes out when the upstream cannot be reached.
    let exchange: Connection.Exchange

    init(tunnel: ConnectionTunnel, exchange: Connection.Exchange, now: Int64) {
        self.tunnel = tunnel
        self.exchange = exchange
        self.startedAt = now
    }

    /// A side hung up: its socket is shut both ways (its end came, and ours went to it), and is
    /// no longer watched (`Selector.unwatch`): a hang-up stays reported whatever the interest,
    /// and would wake the loop at once, again and again, while that side's last bytes wait for
    /// the other side to take them. Reading from it never waits any more (bytes, then the end),
    /// so the other side's room to write is what moves them on.
    var clientHungUp = false
    var upstreamHungUp = false

    /// What the upstream socket is watched for.
    var upstreamInterest: Interest {
        if connecting { return .write }
        if upstreamHungUp { return [] }
        var wanted: Interest = []
        if down.wantsSource { wanted.insert(.read) }
        if up.owes || (clientHungUp && up.wantsSource) { wanted.insert(.write) }
        return wanted
    }

    /// What the client's socket is watched for: nothing is read from it until the upstream is
    /// connected (what came behind the `CONNECT` already waits in `up`).
    var clientInterest: Interest {
        if clientHungUp { return [] }
        var wanted: Interest = []
        if !connecting && up.wantsSource { wanted.insert(.read) }
        if down.owes || (upstreamHungUp && down.wantsSource) { wanted.insert(.write) }
        return wanted
    }

    /// Both pipes go with the tunnel.
    func releasePipes() {
        up.pipe?.close()
        up.pipe = nil
        down.pipe?.close()
        down.pipe = nil
    }

    static let establishedHead = Array("HTTP/1.1 200 Connection Established\r\n\r\n".utf8)
}

/// One direction of a relay. Bytes are taken from the source only when nothing taken before
/// waits for the destination, so at most one pipe's worth (splicing) or one read (copying) is
/// held per direction whatever the two sides' speeds: back-pressure, never unbounded buffering.
struct RelayLeg {
    /// Bytes in user space, sent before anything else: the `200` head, the bytes that came
    /// behind the `CONNECT`, or (copying) what the destination did not take of one read.
    var held: [UInt8] = []
    var heldSent = 0
    /// Splicing (Linux): the pipe the bytes pass through, and how many are in it now.
    var pipe: SplicePipe?
    var inPipe = 0
    /// The source sent its last byte; `shutDown`: the destination was told so (its write side
    /// shut) once everything before it had gone.
    var sourceEnded = false
    var shutDown = false
    /// Bytes taken from the source.
    var bytes = 0

    var owes: Bool { heldSent < held.count || inPipe > 0 }
    var wantsSource: Bool { !sourceEnded && !owes }

    /// How far one readiness event moves a leg before the loop serves its other connections.
    static let budget = 1 << 20

    enum Stop: Equatable {
        /// Nothing more to read now; the destination took everything.
        case sourceDry
        /// The destination takes no more now; bytes wait for it.
        case destinationFull
        /// The source ended and everything before its end has gone.
        case sourceEnded
        /// The budget is spent; more may be ready.
        case budgetSpent
        case sourceFailed(Int32)
        case destinationFailed(Int32)
    }

    /// Moves what can be moved from `source` to `destination` without blocking: first what is
    /// held, then what is in the pipe, then fresh bytes (spliced through the pipe, or read into
    /// `buffer` and sent). `moved` grows by the bytes delivered.
    mutating func pump(
        from source: Int32,
        to destination: Int32,
        buffer: UnsafeMutableRawBufferPointer,
        moved: inout Int
    ) -> Stop {
        let start = moved
        while moved - start < Self.budget {
            if heldSent < held.count {
                let result = held.withUnsafeBytes {
                    Posix.send(destination, UnsafeRawBufferPointer(rebasing: $0[heldSent...]))
                }
                switch result {
                case .bytes(let n) where n > 0:
                    heldSent += n
                    moved += n
                    if heldSent == held.count {
                        held = []
                        heldSent = 0
                    }
                    continue
                case .bytes, .wouldBlock, .endOfFile:
                    return .destinationFull
                case .failed(let code):
                    return .destinationFailed(code)
                }
            }
            if inPipe > 0, let pipe {
                switch Posix.splice(from: pipe.readEnd, to: destination, length: inPipe) {
                case .bytes(let n):
                    inPipe -= n
                    moved += n
                    continue
                case .wouldBlock:
                    return .destinationFull
                case .endOfFile:
                    return .destinationFailed(0)  // an empty pipe that should hold bytes
                case .failed(let code):
                    return .destinationFailed(code)
                }
            }
            if sourceEnded { return .sourceEnded }
            let stop = pipe == nil ? copyOnce(source, destination, buffer, &moved) : spliceIn(source)
            if let stop { return stop }
        }
        return .budgetSpent
    }

    /// Fresh bytes into the (empty) pipe; nil to go on.
    private mutating func spliceIn(_ source: Int32) -> Stop? {
        guard let pipe else { return nil }
        switch Posix.splice(from: source, to: pipe.writeEnd, length: pipe.capacity) {
        case .bytes(let n):
            inPipe = n
            bytes += n
            // A pipe (about) full: bulk traffic, which a larger pipe moves in fewer calls. Its
            // slots hold a socket buffer's fragments, so it can be full short of its capacity.
            if n >= pipe.capacity / 2 { self.pipe?.grow() }
            return nil
        case .endOfFile:
            sourceEnded = true
            return .sourceEnded
        case .wouldBlock:
            return .sourceDry
        case .failed(let code) where Posix.spliceUnsupported(code):
            // This pair cannot be spliced (the pipe is empty: nothing is lost): copy instead.
            pipe.close()
            self.pipe = nil
            return nil
        case .failed(let code):
            return .sourceFailed(code)
        }
    }

    /// One read into `buffer`, sent on at once; what the destination does not take is held.
    private mutating func copyOnce(
        _ source: Int32,
        _ destination: Int32,
        _ buffer: UnsafeMutableRawBufferPointer,
        _ moved: inout Int
    ) -> Stop? {
        switch Posix.read(source, into: buffer) {
        case .bytes(let n):
            bytes += n
            let fresh = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            switch Posix.send(destination, fresh) {
            case .bytes(let sent):
                moved += sent
                if sent < n { held = Array(fresh[sent...]) }
                return nil
            case .wouldBlock, .endOfFile:
                held = Array(fresh)
                return .destinationFull
            case .failed(let code):
                return .destinationFailed(code)
            }
        case .endOfFile:
            sourceEnded = true
            return .sourceEnded
        case .wouldBlock:
            return .sourceDry
        case .failed(let code):
            return .sourceFailed(code)
        }
    }
}
