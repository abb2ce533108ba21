import HTTP1

/// The HTTP client's side of an event loop: upstream connections share the loop's selector,
/// timers and read buffer with its server connections.
extension EventLoop {
    /// Runs on this loop: takes an idle connection to the upstream, or connects a new one.
    func startExchange(_ exchange: UpstreamExchange, address: SocketAddress) {
        if startedOnIdleUpstream(exchange) { return }
        connect(exchange, to: address)
    }

    /// A new connection for the exchange; refused at once, the name's next address is tried.
    func connect(_ exchange: UpstreamExchange, to address: SocketAddress) {
        switch ClientSockets.connect(to: address) {
        case .failed(let code):
            if let next = exchange.nextAddress() {
                connect(exchange, to: next)
                return
            }
            exchange.answer(.failure(.connect("\(exchange.endpoint): \(Posix.errorDescription(code))")))
        case .started(let fd, let inProgress):
            var session: TLSSession?
            if exchange.endpoint.tls {
                do {
                    session = try TLSSession(
                        context: exchange.client.trust.context().get(),
                        host: exchange.endpoint.host
                    )
                } catch {
                    Posix.close(fd)
                    exchange.answer(.failure(error))
                    return
                }
            }
            nextConnectionID += 1
            let upstream = UpstreamConnection(
                id: nextConnectionID,
                fd: fd,
                endpoint: exchange.endpoint,
                address: address,
                loop: self,
                connecting: inProgress,
                tls: session
            )
            do {
                try selector.add(fd, [])
            } catch {
                Posix.close(fd)
                exchange.answer(.failure(.connect("\(error)")))
                return
            }
            upstreams[fd] = upstream
            upstream.begin(exchange, reused: false)
            settleUpstream(upstream)
        }
    }

    func handleUpstreamEvent(_ event: ReadyEvent, _ upstream: UpstreamConnection) {
        if event.writable || (event.failed && upstream.phase == .connecting) { upstream.handleWritable() }
        if (event.readable || event.failed) && !upstream.isClosed { upstream.handleReadable() }
        settleUpstream(upstream)
    }

    func settleUpstream(_ upstream: UpstreamConnection) {
        if upstream.isClosed {
            removeUpstream(upstream)
            return
        }
        let wanted = upstream.interest
        guard wanted != upstream.registeredInterest else { return }
        do {
            try selector.change(upstream.fd, from: upstream.registeredInterest, to: wanted)
            upstream.registeredInterest = wanted
        } catch {
            upstream.close()
            removeUpstream(upstream)
        }
    }

    func removeUpstream(_ upstream: UpstreamConnection) {
        guard upstreams[upstream.fd] === upstream else { return }
        upstreams[upstream.fd] = nil
        idleUpstreams[upstream.endpoint]?.connections.removeAll { $0 === upstream }
        selector.forgetClosed(upstream.fd)
    }

    func scheduleUpstreamTimer(at deadline: Int64, for upstream: UpstreamConnection) {
        timers.schedule(at: deadline, connectionID: upstream.id, fd: upstream.fd)
    }

    /// A response ended on a reusable connection: keep it for the next request to that upstream
    /// (at most the client's limit per upstream; the rest close).
    func poolUpstream(_ upstream: UpstreamConnection) {
        let idle: IdleUpstreams
        if let bucket = idleUpstreams[upstream.endpoint] {
            idle = bucket
        } else {
            idle = IdleUpstreams()
            idleUpstreams[upstream.endpoint] = idle
        }
        guard idle.connections.count < (upstream.exchange?.client.maxIdlePerEndpoint ?? 32) else {
            upstream.close()
            return
        }
        idle.connections.append(upstream)
    }

    /// On this loop's thread: the exchange is sent on a pooled connection, or has been
    /// answered (cancelled, or the server is stopping); false when it needs a new connection.
    func startedOnIdleUpstream(_ exchange: UpstreamExchange) -> Bool {
        guard !exchange.task.isCancelled else { return true }
        guard !isStopping else {
            exchange.answer(.failure(.connect("the server is stopping")))
            return true
        }
        guard let idle = takeIdleUpstream(exchange.endpoint) else { return false }
        idle.begin(exchange, reused: true)
        settleUpstream(idle)
        return true
    }

    private func takeIdleUpstream(_ endpoint: ClientEndpoint) -> UpstreamConnection? {
        // The bucket is an object, so taking and pooling change its array in place: a bucket
        // copied out of the dictionary, and even the dictionary's in-place accessor, allocated
        // per proxied request.
        guard let idle = idleUpstreams[endpoint] else { return nil }
        while let last = idle.connections.popLast() {
            // The loop watches idle connections and closes one that turns readable, but bytes
            // or a close that came during this pass are not seen yet: looked for here, on every
            // reuse (one recv). Bytes nobody asked for would be taken for the next request's
            // response (an upstream that sent more than it framed), and a closed one would cost
            // a retry. An idempotent request that still meets a closed connection is sent again.
            if Posix.hasPendingInput(last.fd) {
                last.close()
                removeUpstream(last)
                continue
            }
            return last
        }
        return nil
    }

    func cancelUpstream(id: UInt64, fd: Int32) {
        guard let upstream = upstreams[fd], upstream.id == id, upstream.phase != .idle else { return }
        upstream.cancel()
        settleUpstream(upstream)
    }

    func resumeUpstream(id: UInt64, fd: Int32) {
        guard let upstream = upstreams[fd], upstream.id == id else { return }
        upstream.resume()
        settleUpstream(upstream)
    }
}

/// The pooled connections to one upstream on one loop (only that loop touches them).
final class IdleUpstreams {
    var connections: [UpstreamConnection] = []
}
