import HTTP1

/// An upstream connection after `101 Switching Protocols` (a proxied WebSocket): no more HTTP.
/// What the upstream sends goes to the tunnel as it arrives; what the tunnel's owner writes to
/// its `output` goes to the upstream (through the TLS session for wss), with back-pressure both
/// ways. The connection never returns to the pool; it closes when either side ends.
extension UpstreamConnection {
    func switchProtocols(_ received: ResponseHead, milliseconds: Int64) {
        let tunnel = ConnectionUpgrade()
        self.tunnel = tunnel
        phase = .tunnel
        let mailbox = loop.mailbox
        let id = self.id
        let fd = self.fd
        let loop = self.loop
        tunnel.output.attach { mailbox.post(.task { loop.pumpUpstreamTunnel(id: id, fd: fd) }) }
        tunnel.onInputResumed { mailbox.post(.task { loop.resumeUpstream(id: id, fd: fd) }) }
        // Long-lived from here: the exchange (and its deadline) is over.
        let exchange = self.exchange
        self.exchange = nil
        exchange?.task.done()
        exchange?.answer(.success(ClientResponse(head: received, body: .upgraded(tunnel), milliseconds: milliseconds)))
    }

    /// The owner wrote (or ended): its bytes go out.
    func pumpTunnel() {
        guard phase == .tunnel, let tunnel else { return }
        let batch = tunnel.output.take(unsent: outbound.count + plaintext.count)
        for piece in batch.pieces {
            if tls == nil { outbound += piece } else { plaintext += piece }
        }
        if batch.aborted {
            close()
            return
        }
        if batch.finished { tunnelEnding = true }
        if tls != nil { encrypt() }
        if !isClosed { flush() }
    }

    /// `flush` wrote what it could: a waiting owner may go on; an ended tunnel closes.
    func tunnelFlushed() {
        guard let tunnel else { return }
        tunnel.output.drained(unsent: outbound.count + plaintext.count)
        if tunnelEnding && outbound.isEmpty && plaintext.isEmpty { close() }
    }
}

extension EventLoop {
    func pumpUpstreamTunnel(id: UInt64, fd: Int32) {
        guard let upstream = upstreams[fd], upstream.id == id else { return }
        upstream.pumpTunnel()
        settleUpstream(upstream)
    }
}
