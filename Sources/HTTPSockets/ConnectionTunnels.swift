import Dispatch
import HTTP1

/// `CONNECT` answered with `.tunnel` (a forward proxy): a blind relay to the upstream, or TLS
/// terminated here (interception). The handler decided which; this file opens and closes
/// tunnels, `ConnectionRelaying.swift` moves a relay's bytes.
///
/// A relay (`TunnelRelay`) connects to the upstream on the client's loop (names resolved off
/// it), answers `200` or `502`, then passes bytes both ways: spliced through a kernel pipe on
/// Linux, copied elsewhere. Each side's end of input is passed on as a half-close; the tunnel
/// ends when both have ended, when either fails, at the idle timeout, or when the server stops,
/// and its `ConnectionTunnel` then says how (bytes each way, duration, the reason unless both
/// sides closed). It holds the client's connection slot all along, so tunnels count against
/// `maxConnections`.
extension Connection {
    /// The handler answered `CONNECT` with a tunnel.
    func startTunnel(_ tunnel: ConnectionTunnel, _ exchange: Exchange) {
        // A tunnel inside TLS (CONNECT sent to the https side of the port, or again inside an
        // intercepted tunnel) would need TLS inside TLS: refused, as a proxy the client can
        // reach over plain http works.
        guard transport.session == nil else {
            tunnel.update {
                $0.state = .failed
                $0.status = 501
                $0.error = "CONNECT over TLS to the proxy is not supported"
            }
            answerTunnelFailure(
                501,
                "CONNECT over TLS to the proxy is not supported; use http:// for the proxy",
                exchange
            )
            return
        }
        switch tunnel.mode {
        case .intercept: startInterception(tunnel, exchange)
        case .relay: startRelay(tunnel, exchange)
        }
    }

    /// No tunnel: the reason, and the connection closes (bytes the client may have sent behind
    /// the CONNECT were meant for the tunnel, not requests). It may run while the parser reads
    /// `pending`, so it touches neither `pending` nor the socket; the loop writes it.
    private func answerTunnelFailure(_ status: Int, _ reason: String, _ exchange: Exchange) {
        let response = OutgoingResponse.text(status, "\(HTTPStatus.reason(status)): \(reason)\n")
        enqueue(head: response.prepared, Exchange(isHead: false, keepAlive: false, version: exchange.version))
        enqueue(body: response.prepared.body)
        switchedTransport = false
        finishResponse(keepAlive: false)
    }

    // MARK: interception

    /// `200`, then TLS with a certificate for the tunnel's host; the requests inside are parsed
    /// as any others, stamped with the tunnel's authority.
    private func startInterception(_ tunnel: ConnectionTunnel, _ exchange: Exchange) {
        guard let tls = loop.configuration.interceptTLS else {
            tunnel.update {
                $0.state = .failed
                $0.status = 502
                $0.error = "no certificate authority to intercept with"
            }
            answerTunnelFailure(502, "this server has no certificate authority to intercept with", exchange)
            return
        }
        // The 200 goes out as it is, before the first TLS record: queued responses of
        // pipelined requests before it must have gone first (written here, not with `flush`,
        // which may parse `pending` while the parser is reading it).
        if !output.isEmpty, case .failed = output.flush(to: fd, through: nil) {
            close()
            return
        }
        guard output.isEmpty else {
            close()
            return
        }
        output.appendUnsealed(TunnelRelay.establishedHead)
        transport = .awaitingInterceptedTLS(tls.context(forName: tunnel.host) ?? tls.primary)
        parser = RequestParser(limits: loop.configuration.limits, peer: peer, tunnelAuthority: tunnel.authority)
        tunnel.update {
            $0.state = .open
            $0.status = 200
        }
        interceptedTunnel = tunnel
        interceptStartedAt = loop.now
        phase = .active
        switchedTransport = true
        requestStartedAt = loop.now
    }

    /// Bytes that came behind the CONNECT (a ClientHello sent at once) belong to what follows it.
    func handOverPendingToTunnel() {
        guard switchedTransport else { return }
        switchedTransport = false
        guard !pending.isEmpty, !isClosed else { return }
        let bytes = pending
        pending = []
        if case .tunneling(let relay) = phase {
            bytes.withUnsafeBytes { holdFromClient(relay, $0) }
        } else {
            bytes.withUnsafeBytes { receiveSecure($0) }
        }
    }

    // MARK: relaying

    private func startRelay(_ tunnel: ConnectionTunnel, _ exchange: Exchange) {
        let relay = TunnelRelay(tunnel: tunnel, exchange: exchange, now: loop.now)
        phase = .tunneling(relay)
        switchedTransport = true
        if let address = ClientSockets.numeric(host: tunnel.host, port: tunnel.port) {
            connectTunnel(relay, to: address)
            return
        }
        let mailbox = loop.mailbox
        let loop = self.loop
        let id = self.id
        let fd = self.fd
        let host = tunnel.host
        let port = tunnel.port
        DispatchQueue.global().async {
            let result = ClientSockets.resolve(host: host, port: port)
            mailbox.post(.task { loop.tunnelResolved(connection: id, fd: fd, result) })
        }
    }

    /// The name resolved (or not), back on the loop.
    func tunnelResolved(_ result: Result<[SocketAddress], SocketError>) {
        guard case .tunneling(let relay) = phase, relay.connecting, relay.upstreamFD < 0 else { return }
        switch result {
        case .success(let addresses) where !addresses.isEmpty:
            relay.untried = addresses.dropFirst()
            connectTunnel(relay, to: addresses[0])
        case .success:
            tunnelFailed(relay, "\(relay.tunnel.authority): no address")
        case .failure(let error):
            tunnelFailed(relay, "\(error)")
        }
    }

    func connectTunnel(_ relay: TunnelRelay, to address: SocketAddress) {
        switch ClientSockets.connect(to: address) {
        case .failed(let code):
            if let next = relay.untried.popFirst() {
                connectTunnel(relay, to: next)
                return
            }
            tunnelFailed(relay, "cannot connect to \(relay.tunnel.authority): \(Posix.errorDescription(code))")
        case .started(let upstream, let inProgress):
            do {
                try loop.selector.add(upstream, [])
            } catch {
                Posix.close(upstream)
                tunnelFailed(relay, "cannot watch the connection to \(relay.tunnel.authority): \(error)")
                return
            }
            relay.upstreamFD = upstream
            loop.tunnelUpstreams[upstream] = self
            if !inProgress { tunnelConnected(relay) }
        }
    }

    func tunnelConnected(_ relay: TunnelRelay) {
        relay.connecting = false
        relay.down.held = TunnelRelay.establishedHead + relay.down.held
        if loop.configuration.splicesTunnels {
            relay.up.pipe = SplicePipe.make()
            relay.down.pipe = SplicePipe.make()
        }
        relay.tunnel.update {
            $0.state = .open
            $0.status = 200
        }
        lastActivity = loop.now
        relayToClient(relay)
        relayToUpstream(relay)
    }

    /// No tunnel: the client gets 502 with the reason, and the connection serves requests again.
    func tunnelFailed(_ relay: TunnelRelay, _ reason: String) {
        forgetTunnelUpstream(relay)
        let milliseconds = loop.now - relay.startedAt
        relay.tunnel.update {
            $0.state = .failed
            $0.status = 502
            $0.error = reason
            $0.milliseconds = milliseconds
        }
        phase = .active
        answerTunnelFailure(502, reason, relay.exchange)
    }

    func forgetTunnelUpstream(_ relay: TunnelRelay) {
        guard relay.upstreamFD >= 0 else { return }
        loop.tunnelUpstreams[relay.upstreamFD] = nil
        Posix.close(relay.upstreamFD)
        loop.selector.forgetClosed(relay.upstreamFD)
        relay.upstreamFD = -1
    }

    /// The tunnel is over: both sockets close (`close`) and the journal learns its totals, and
    /// why, unless both sides closed (`reason` nil).
    func endTunnel(_ relay: TunnelRelay, reason: String?) {
        guard case .tunneling = phase else { return }
        if let reason { noteEnd(reason) }
        close()
    }

    /// From `close`: the upstream socket goes with the client's.
    func closeTunnel(_ relay: TunnelRelay) {
        let milliseconds = loop.now - relay.startedAt
        let error = relay.connecting ? endReason ?? "the tunnel never opened" : endReason
        relay.tunnel.update {
            $0.state = relay.connecting ? .failed : .closed
            $0.bytesFromClient = relay.up.bytes
            $0.bytesToClient = relay.down.bytes
            $0.milliseconds = milliseconds
            if let error, $0.error == nil { $0.error = error }
        }
        forgetTunnelUpstream(relay)
        relay.releasePipes()
    }

    /// From `close`: an intercepted tunnel ends with its connection, and says why as a blind one
    /// does (`endReason`: nil when the client closed it, or a response closed it).
    func closeInterceptedTunnel(_ tunnel: ConnectionTunnel) {
        let milliseconds = loop.now - interceptStartedAt
        let error = endReason
        tunnel.update {
            $0.state = .closed
            $0.milliseconds = milliseconds
            if let error, $0.error == nil { $0.error = error }
        }
    }

    /// Sets the upstream socket's interest after anything happened to the tunnel.
    func settleTunnel(_ relay: TunnelRelay) {
        guard relay.upstreamFD >= 0 else { return }
        let wanted = relay.upstreamInterest
        guard wanted != relay.registeredInterest else { return }
        do {
            try loop.selector.change(relay.upstreamFD, from: relay.registeredInterest, to: wanted)
            relay.registeredInterest = wanted
        } catch {
            endTunnel(relay, reason: "cannot watch the connection to the upstream: \(error)")
        }
    }

    /// The idle timeout (nothing moved either way), and the connect bound (the header timeout).
    func tunnelTimedOut(_ relay: TunnelRelay, now: Int64) {
        if relay.connecting {
            if now - relay.startedAt >= loop.configuration.headerTimeoutMilliseconds {
                tunnelFailed(relay, "no connection to \(relay.tunnel.authority) within the header timeout")
            }
        } else if now - lastActivity >= loop.configuration.idleTimeoutMilliseconds {
            endTunnel(relay, reason: idleTimeoutReason)
        }
    }
}
