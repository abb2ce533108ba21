import HTTP1

/// Connections handed to another protocol (a WebSocket) after `101 Switching Protocols`: the
/// head goes out, then the upgrade's output is streamed unframed and the client's bytes go to
/// it. The phase is `.streaming` with the upgrade set, so back-pressure, stream counting,
/// shutdown and the client leaving work as for any long-lived stream.
extension Connection {
    func startUpgrade(_ upgrade: ConnectionUpgrade, _ prepared: PreparedResponse, _ exchange: Exchange) {
        if output.isEmpty { lastWriteProgress = loop.now }
        output.append(copying: prepared.head)
        output.append(copying: Self.upgradeEnd)
        let stream = upgrade.output
        phase = .streaming(
            StreamState(stream: stream, chunked: false, remaining: nil, keepAlive: false, upgrade: upgrade)
        )
        if stream.isLongLived { loop.shared.streams.withLock { $0 += 1 } }
        let mailbox = loop.mailbox
        let id = self.id
        let fd = self.fd
        stream.attach { mailbox.post(.streamReady(connection: id, fd: fd)) }
        upgrade.onInputResumed { mailbox.post(.streamReady(connection: id, fd: fd)) }
        handOverPendingToUpgrade()
    }

    /// Bytes the client sent right behind the upgrade request (read with it) are the new
    /// protocol's: they go to the upgrade, not to the request parser.
    func handOverPendingToUpgrade() {
        guard case .streaming(let state) = phase, let upgrade = state.upgrade, !pending.isEmpty else { return }
        let bytes = pending
        pending = []
        upgrade.received(bytes)
    }

    private static let upgradeEnd = Array("Connection: Upgrade\r\n\r\n".utf8)
}
