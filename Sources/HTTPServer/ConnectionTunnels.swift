import Dispatch
import HTTP1

/// `CONNECT` answered with `.tunnel` (a forward proxy): a blind relay to the upstream, or TLS
/// terminated here (interception). The handler decided which; this file only moves bytes.
///
/// A relay is the client's connection in the `.tunneling` phase plus one upstream socket on the
/// same loop. Bytes read from one side are sent straight to the other from the loop's read
/// buffer; what the other side does not take at once waits in the relay, and reading from the
/// first side stops until it has gone (back-pressure, at most one read of 64 KiB held each
/// way). Each side's end of input is passed on as a half-close; the tunnel ends when both have
/// ended, when either fails, at the idle timeout, or when the server stops. It holds the
/// client's connection slot all along, so tunnels count against `maxConnections`.
final class TunnelRelay {
    let tunnel: ConnectionTunnel
    let startedAt: Int64
    var upstreamFD: Int32 = -1
    var connecting = true
    var untried: ArraySlice<SocketAddress> = []
    var registeredInterest: Interest = []
    /// Bytes waiting for the upstream, and for the client (the `200` head first).
    var toUpstream: [UInt8] = []
    var toUpstreamSent = 0
    var toClient: [UInt8] = []
    var toClientSent = 0
    var clientEnded = false
    var upstreamEnded = false
    var upstreamShutDown = false
    var clientShutDown = false
    var bytesFromClient = 0
    var bytesToClient = 0
    /// Why it ended, when it did not end by both sides closing.
    var endError: String?
    /// The `CONNECT` exchange: how a `502` goes out when the upstream cannot be reached.
    let exchange: Connection.Exchange

    init(tunnel: ConnectionTunnel, exchange: Connection.Exchange, now: Int64) {
        self.tunnel = tunnel
        self.exchange = exchange
        self.startedAt = now
    }

    var owesUpstream: Bool { toUpstreamSent < toUpstream.count }
    var owesClient: Bool { toClientSent < toClient.count }

    /// What the upstream socket is watched for.
    var upstreamInterest: Interest {
        if connecting { return .write }
        var wanted: Interest = []
        if !upstreamEnded && !owesClient { wanted.insert(.read) }
        if owesUpstream { wanted.insert(.write) }
        return wanted
    }

    /// What the client's socket is watched for.
    var clientInterest: Interest {
        var wanted: Interest = []
        if !clientEnded && !owesUpstream && toUpstream.count < Connection.heldInputLimit { wanted.insert(.read) }
        if owesClient { wanted.insert(.write) }
        return wanted
    }

    static let establishedHead = Array("HTTP/1.1 200 Connection Established\r\n\r\n".utf8)
}

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
            relay.toUpstream.append(contentsOf: bytes)
            relay.bytesFromClient += bytes.count
            if !relay.connecting { flushToUpstream(relay) }
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

    private func connectTunnel(_ relay: TunnelRelay, to address: SocketAddress) {
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

    private func tunnelConnected(_ relay: TunnelRelay) {
        relay.connecting = false
        relay.toClient = TunnelRelay.establishedHead
        relay.toClientSent = 0
        relay.tunnel.update {
            $0.state = .open
            $0.status = 200
        }
        lastActivity = loop.now
        flushToClient(relay)
        flushToUpstream(relay)
    }

    /// No tunnel: the client gets 502 with the reason, and the connection serves requests again.
    private func tunnelFailed(_ relay: TunnelRelay, _ reason: String) {
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

    private func forgetTunnelUpstream(_ relay: TunnelRelay) {
        guard relay.upstreamFD >= 0 else { return }
        loop.tunnelUpstreams[relay.upstreamFD] = nil
        Posix.close(relay.upstreamFD)
        loop.selector.forgetClosed(relay.upstreamFD)
        relay.upstreamFD = -1
    }

    /// The upstream socket is ready.
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
        if event.writable { flushToUpstream(relay) }
        guard case .tunneling = phase else { return }
        if event.readable || event.failed { readFromUpstream(relay) }
    }

    /// Client bytes: straight on to the upstream when nothing waits before them.
    func relayFromClient(_ relay: TunnelRelay, _ bytes: UnsafeRawBufferPointer) {
        relay.bytesFromClient += bytes.count
        lastActivity = loop.now
        if relay.connecting || relay.owesUpstream {
            relay.toUpstream.append(contentsOf: bytes)
            return
        }
        switch Posix.send(relay.upstreamFD, bytes) {
        case .bytes(let n):
            if n < bytes.count {
                relay.toUpstream = Array(bytes[n...])
                relay.toUpstreamSent = 0
            }
        case .wouldBlock:
            relay.toUpstream = Array(bytes)
            relay.toUpstreamSent = 0
        case .endOfFile, .failed:
            endTunnel(relay, error: "the upstream closed the connection")
        }
    }

    /// The client sent its last byte: the upstream is told once everything before it is there.
    func tunnelClientEnded(_ relay: TunnelRelay) {
        relay.clientEnded = true
        if relay.connecting {
            endTunnel(relay, error: "the client left before the tunnel opened")
            return
        }
        passOnEnds(relay)
    }

    private func readFromUpstream(_ relay: TunnelRelay) {
        switch Posix.read(relay.upstreamFD, into: loop.readBuffer) {
        case .wouldBlock:
            return
        case .endOfFile:
            relay.upstreamEnded = true
            passOnEnds(relay)
        case .failed:
            endTunnel(relay, error: "the connection to the upstream failed")
        case .bytes(let n):
            relay.bytesToClient += n
            lastActivity = loop.now
            let bytes = UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<n])
            switch Posix.send(fd, bytes) {
            case .bytes(let sent):
                if sent < n {
                    relay.toClient = Array(bytes[sent...])
                    relay.toClientSent = 0
                }
            case .wouldBlock:
                relay.toClient = Array(bytes)
                relay.toClientSent = 0
            case .endOfFile, .failed:
                endTunnel(relay, error: nil)
            }
        }
    }

    func flushToClient(_ relay: TunnelRelay) {
        while relay.owesClient {
            let result = relay.toClient.withUnsafeBytes {
                Posix.send(fd, UnsafeRawBufferPointer(rebasing: $0[relay.toClientSent...]))
            }
            switch result {
            case .bytes(let n):
                relay.toClientSent += n
                lastActivity = loop.now
            case .wouldBlock:
                return
            case .endOfFile, .failed:
                endTunnel(relay, error: nil)
                return
            }
        }
        relay.toClient = []
        relay.toClientSent = 0
        passOnEnds(relay)
    }

    private func flushToUpstream(_ relay: TunnelRelay) {
        while relay.owesUpstream {
            let result = relay.toUpstream.withUnsafeBytes {
                Posix.send(relay.upstreamFD, UnsafeRawBufferPointer(rebasing: $0[relay.toUpstreamSent...]))
            }
            switch result {
            case .bytes(let n):
                relay.toUpstreamSent += n
                lastActivity = loop.now
            case .wouldBlock:
                return
            case .endOfFile, .failed:
                endTunnel(relay, error: "the upstream closed the connection")
                return
            }
        }
        relay.toUpstream = []
        relay.toUpstreamSent = 0
        passOnEnds(relay)
    }

    /// Half-closes passed on once the bytes before them are through; both ended: done.
    private func passOnEnds(_ relay: TunnelRelay) {
        guard case .tunneling = phase, !relay.connecting else { return }
        if relay.clientEnded, !relay.owesUpstream, !relay.upstreamShutDown {
            relay.upstreamShutDown = true
            Posix.shutdownWrite(relay.upstreamFD)
        }
        if relay.upstreamEnded, !relay.owesClient, !relay.clientShutDown {
            relay.clientShutDown = true
            Posix.shutdownWrite(fd)
        }
        if relay.upstreamShutDown && relay.clientShutDown { endTunnel(relay, error: nil) }
    }

    /// The tunnel is over: both sockets close (`close`) and the journal learns its totals.
    func endTunnel(_ relay: TunnelRelay, error: String?) {
        guard case .tunneling = phase else { return }
        if relay.endError == nil { relay.endError = error }
        close()
    }

    /// From `close`: the upstream socket goes with the client's.
    func closeTunnel(_ relay: TunnelRelay) {
        let milliseconds = loop.now - relay.startedAt
        let error = relay.connecting ? relay.endError ?? "the tunnel never opened" : relay.endError
        relay.tunnel.update {
            $0.state = relay.connecting ? .failed : .closed
            $0.bytesFromClient = relay.bytesFromClient
            $0.bytesToClient = relay.bytesToClient
            $0.milliseconds = milliseconds
            if let error, $0.error == nil { $0.error = error }
        }
        forgetTunnelUpstream(relay)
    }

    /// From `close`: an intercepted tunnel ends with its connection.
    func closeInterceptedTunnel(_ tunnel: ConnectionTunnel) {
        let milliseconds = loop.now - interceptStartedAt
        tunnel.update {
            $0.state = .closed
            $0.milliseconds = milliseconds
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
            endTunnel(relay, error: "cannot watch the connection to the upstream: \(error)")
        }
    }

    /// The idle timeout (nothing moved either way), and the connect bound (the header timeout).
    func tunnelTimedOut(_ relay: TunnelRelay, now: Int64) {
        if relay.connecting {
            if now - relay.startedAt >= loop.configuration.headerTimeoutMilliseconds {
                tunnelFailed(relay, "no connection to \(relay.tunnel.authority) within the header timeout")
            }
        } else if now - lastActivity >= loop.configuration.idleTimeoutMilliseconds {
            endTunnel(relay, error: "idle for the idle timeout")
        }
    }
}
