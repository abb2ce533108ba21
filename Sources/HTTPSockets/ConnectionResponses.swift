import HTTP1

/// Answering: a response now, after a delay, when a pending answer completes, as a fault, or in
/// dribbled pieces.
extension Connection {
    func respond(to request: consuming IncomingRequest) {
        let keepAlive = request.wantsKeepAlive && !loop.isStopping
        let exchange = Exchange(isHead: request.method == "HEAD", keepAlive: keepAlive, version: request.version)
        switch loop.handler(request) {
        case .now(let response):
            if response.delayMilliseconds <= 0, case .normal = response.delivery, !response.closeConnection {
                // The common case, written at once: nothing copied, nothing scheduled.
                enqueue(head: response.prepared, exchange)
                if !exchange.isHead { enqueue(body: response.prepared.body) }
                finishResponse(keepAlive: keepAlive)
                return
            }
            begin(response, exchange)
        case .later(let promise):
            phase = .awaiting(promise, exchange)
            promise.whenComplete(send: loop.mailbox, connection: id, fd: fd)
        }
    }

    /// A pending answer arrived (through the mailbox, on this loop).
    func completePending(_ response: consuming OutgoingResponse) {
        guard case .awaiting(_, let exchange) = phase else { return }
        phase = .active
        begin(response, exchange)
        flush()
    }

    private func begin(_ response: OutgoingResponse, _ exchange: Exchange) {
        var exchange = exchange
        if response.closeConnection { exchange.keepAlive = false }
        if response.delayMilliseconds > 0 {
            phase = .delayed(response, exchange)
            loop.scheduleTimer(at: loop.now + Int64(response.delayMilliseconds), for: self)
        } else {
            deliver(response, exchange)
        }
    }

    func reject(_ error: HTTPParseError) {
        loop.configuration.onRejection?(peer, error)
        noteEnd("\(error.status) \(HTTPStatus.reason(error.status)): \(error.reason)")
        let response = OutgoingResponse.text(error.status, "\(HTTPStatus.reason(error.status)): \(error.reason)\n")
        enqueue(head: response.prepared, Exchange(isHead: false, keepAlive: false, version: .http1_1))
        enqueue(body: response.prepared.body)
        closeWhenFlushed = true
    }

    private func deliver(_ response: OutgoingResponse, _ exchange: Exchange) {
        var exchange = exchange
        // A response that waited through the start of a shutdown must say it is the last.
        if loop.isStopping { exchange.keepAlive = false }
        let prepared = response.prepared
        // Past its delay the answer is on its way; a dribble reports when its last piece goes.
        if case .dribble = response.delivery {} else { response.deliveryReport?.end(.delivered) }
        switch response.delivery {
        case .normal:
            enqueue(head: prepared, exchange)
            if !exchange.isHead { enqueue(body: prepared.body) }
            finishResponse(keepAlive: exchange.keepAlive)
        case .stream(let stream):
            startStream(stream, prepared, exchange)
        case .upgrade(let upgrade):
            startUpgrade(upgrade, prepared, exchange)
        case .dribble(let chunks, let duration):
            enqueue(head: prepared, exchange)
            let body = exchange.isHead ? [] : prepared.body
            let pieces = Self.split(body, into: max(1, chunks))
            guard !pieces.isEmpty else {
                response.deliveryReport?.end(.delivered)
                finishResponse(keepAlive: exchange.keepAlive)
                return
            }
            let interval = Int64(max(0, duration)) / Int64(pieces.count)
            phase = .dribbling(
                Dribble(
                    pieces: pieces,
                    report: response.deliveryReport,
                    next: 0,
                    intervalMilliseconds: interval,
                    keepAlive: exchange.keepAlive
                )
            )
            loop.scheduleTimer(at: loop.now + interval, for: self)
        case .reset, .closeWithoutResponse:
            // Responses queued before the fault on a pipelined connection go out first.
            if output.isEmpty { applyFault(response.delivery) } else { phase = .faulting(response.delivery) }
        case .rawThenClose(let bytes):
            enqueue(body: bytes)
            closeWhenFlushed = true
            phase = .active
        case .hang:
            phase = .hanging
        case .tunnel(let tunnel):
            startTunnel(tunnel, exchange)
        }
    }

    /// `reset` or `empty`, once everything queued before it is written.
    func applyFault(_ fault: ResponseDelivery) {
        if case .reset = fault { Posix.setLingerZero(fd) }
        output.removeAll()
        close()
    }

    func finishResponse(keepAlive: Bool) {
        phase = .active
        if !keepAlive { closeWhenFlushed = true }
    }

    static func split(_ body: [UInt8], into count: Int) -> [[UInt8]] {
        guard !body.isEmpty else { return [] }
        let n = min(count, body.count)
        return (0..<n).map { i in Array(body[(body.count * i / n)..<(body.count * (i + 1) / n)]) }
    }

    /// A timer of this connection fired: a delay ended or the next dribble piece is due.
    func timerFired() {
        switch phase {
        case .delayed(let response, let exchange):
            deliver(response, exchange)
            flush()
        case .dribbling(var dribble):
            enqueue(body: dribble.pieces[dribble.next])
            dribble.next += 1
            if dribble.next == dribble.pieces.count {
                dribble.report?.end(.delivered)
                finishResponse(keepAlive: dribble.keepAlive)
            } else {
                phase = .dribbling(dribble)
                loop.scheduleTimer(at: loop.now + dribble.intervalMilliseconds, for: self)
            }
            flush()
        default:
            return
        }
    }
}
