import HTTP1

/// Moving a blind tunnel's bytes (`TunnelRelay`). A readiness event of either socket pumps the
/// directions it concerns (`RelayLeg.pump`): readable or writable, the one that reads from or
/// writes to that socket. A side's end of input is passed on as a half-close once everything
/// before it has gone, and the other direction keeps flowing; a failure ends the tunnel with
/// the reason.
extension Connection {
    enum RelaySide: String {
        case client, upstream
    }

    /// The client's socket is ready: the loop sends its events here instead of reading requests.
    func handleTunnelClientEvent(_ relay: TunnelRelay, _ event: ReadyEvent) {
        if relay.connecting {
            // Nothing is read from the client before the upstream answers; a hang-up ends it.
            if event.failed { endTunnel(relay, reason: "the client left before the tunnel opened") }
            return
        }
        if event.writable || event.failed { relayToClient(relay) }
        if event.readable || event.failed { relayToUpstream(relay) }
        if event.failed { endOnSocketError(relay, fd, .client) }
    }

    /// The upstream socket is ready: connected (or not), or bytes can move.
    func handleTunnelUpstreamEvent(_ event: ReadyEvent) {
        guard case .tunneling(let relay) = phase else { return }
        if relay.connecting {
            guard event.writable || event.failed else { return }
            let error = ClientSockets.connectionError(relay.upstreamFD)
            guard error == 0 else {
                forgetTunnelUpstream(relay)
                if let next = relay.untried.popFirst() {
                    connectTunnel(relay, to: next)
                } else {
                    tunnelFailed(relay, "cannot connect to \(relay.tunnel.authority): \(Posix.errorDescription(error))")
                }
                return
            }
            tunnelConnected(relay)
            return
        }
        if event.writable || event.failed { relayToUpstream(relay) }
        if event.readable || event.failed { relayToClient(relay) }
        if event.failed { endOnSocketError(relay, relay.upstreamFD, .upstream) }
    }

    /// Bytes from the client that did not come through the relay (those behind the `CONNECT`):
    /// held, to go before anything the relay reads.
    func holdFromClient(_ relay: TunnelRelay, _ bytes: UnsafeRawBufferPointer) {
        relay.up.held.append(contentsOf: bytes)
        relay.up.bytes += bytes.count
        lastActivity = loop.now
        relayToUpstream(relay)
    }

    /// The client's end of input, seen outside the relay.
    func tunnelClientEnded(_ relay: TunnelRelay) {
        if relay.connecting {
            endTunnel(relay, reason: "the client left before the tunnel opened")
            return
        }
        relay.up.sourceEnded = true
        passOnEnds(relay)
    }

    func relayToUpstream(_ relay: TunnelRelay) {
        guard case .tunneling = phase, !relay.connecting else { return }
        var moved = 0
        let stop = relay.up.pump(from: fd, to: relay.upstreamFD, buffer: loop.readBuffer, moved: &moved)
        afterPump(relay, stop, moved: moved, from: .client, to: .upstream)
    }

    func relayToClient(_ relay: TunnelRelay) {
        guard case .tunneling = phase, !relay.connecting else { return }
        var moved = 0
        let stop = relay.down.pump(from: relay.upstreamFD, to: fd, buffer: loop.readBuffer, moved: &moved)
        afterPump(relay, stop, moved: moved, from: .upstream, to: .client)
    }

    private func afterPump(_ relay: TunnelRelay, _ stop: RelayLeg.Stop, moved: Int, from: RelaySide, to: RelaySide) {
        if moved > 0 { lastActivity = loop.now }
        switch stop {
        case .sourceFailed(let code):
            abortTunnel(relay, reason: Self.failure(of: from, code, writing: false))
        case .destinationFailed(let code):
            abortTunnel(relay, reason: Self.failure(of: to, code, writing: true))
        case .sourceDry, .destinationFull, .sourceEnded, .budgetSpent:
            passOnEnds(relay)
        }
    }

    /// A hang-up or error on a socket, after what could still move has moved: a pending error
    /// (a reset the reads did not meet, the source having ended) ends the tunnel, as nothing
    /// more can move that way. Without one it is a hang-up: the socket is shut both ways, and
    /// is no longer watched (`TunnelRelay.clientHungUp`).
    private func endOnSocketError(_ relay: TunnelRelay, _ socket: Int32, _ side: RelaySide) {
        guard case .tunneling = phase else { return }
        let code = ClientSockets.connectionError(socket)
        guard code == 0 else {
            abortTunnel(relay, reason: Self.failure(of: side, code, writing: false))
            return
        }
        switch side {
        case .client:
            guard !relay.clientHungUp else { return }
            relay.clientHungUp = true
            if unwatchHungUp(relay, fd, registered: registeredInterest) { registeredInterest = [] }
        case .upstream:
            guard !relay.upstreamHungUp else { return }
            relay.upstreamHungUp = true
            if unwatchHungUp(relay, relay.upstreamFD, registered: relay.registeredInterest) {
                relay.registeredInterest = []
            }
        }
    }

    /// True when the selector no longer watches `socket`: its registered interest is then empty,
    /// as a hung-up side's interest stays, so nothing more is asked of the selector for it.
    private func unwatchHungUp(_ relay: TunnelRelay, _ socket: Int32, registered: Interest) -> Bool {
        do {
            try loop.selector.unwatch(socket, from: registered)
            return true
        } catch {
            endTunnel(relay, reason: "cannot stop watching a side that hung up: \(error)")
            return false
        }
    }

    /// A failure is passed on as one: both sockets are reset rather than closed, so the side
    /// still there cannot take a cut-off stream for a complete one.
    private func abortTunnel(_ relay: TunnelRelay, reason: String) {
        Posix.setLingerZero(fd)
        if relay.upstreamFD >= 0 { Posix.setLingerZero(relay.upstreamFD) }
        endTunnel(relay, reason: reason)
    }

    /// Half-closes passed on once the bytes before them are through; both passed on: done.
    func passOnEnds(_ relay: TunnelRelay) {
        guard case .tunneling = phase, !relay.connecting else { return }
        if relay.up.sourceEnded, !relay.up.owes, !relay.up.shutDown {
            relay.up.shutDown = true
            Posix.shutdownWrite(relay.upstreamFD)
        }
        if relay.down.sourceEnded, !relay.down.owes, !relay.down.shutDown {
            relay.down.shutDown = true
            Posix.shutdownWrite(fd)
        }
        if relay.up.shutDown && relay.down.shutDown { endTunnel(relay, reason: nil) }
    }

    /// Why a tunnel ended on a failed read or write, in the words of the log and the journal.
    static func failure(of side: RelaySide, _ code: Int32, writing: Bool) -> String {
        if Posix.isReset(code) { return "the \(side.rawValue) reset the connection" }
        if writing && Posix.isBrokenPipe(code) {
            return "the \(side.rawValue) closed the connection before taking everything"
        }
        if code == 0 { return "bytes for the \(side.rawValue) were lost in the relay's pipe" }
        let action = writing ? "writing to" : "reading from"
        return "\(action) the \(side.rawValue) failed: \(Posix.errorDescription(code))"
    }
}
