import HTTP1
import SystemSupport

/// One thread running a selector over its own connections and its mailbox.
///
/// Everything a loop owns (connections, timers, the read buffer) is touched only by its thread;
/// other threads reach it only through its `Mailbox`. Loop 0 also accepts: it watches the
/// listeners and hands each new connection to the loops in turn, so one connection wakes one
/// loop (no thundering herd) whatever the selector.
final class EventLoop: @unchecked Sendable {
    let index: Int
    let handler: Handler
    let configuration: ServerConfiguration
    let mailbox: Mailbox
    let shared: LoopGroupState
    let selector: any Selector
    private let listeners: [Int32]
    private let finished: @Sendable () -> Void
    /// Every loop of the server (this one included), set before any starts.
    var group: [EventLoop] = []

    private(set) var now: Int64 = Posix.monotonicMilliseconds()
    private(set) var isStopping = false
    /// A listener's interest change failed and was reported; cleared when one succeeds.
    private var listenerChangeFailed = false
    private var stopDeadline: Int64 = .max
    // Unchecked for exclusive access at run time, as the connection's state is (see
    // `Connection.output`): touched only on this loop's thread, never re-entered while changed.
    @exclusivity(unchecked) private var connections = ConnectionTable()
    @exclusivity(unchecked) var timers = TimerQueue()
    var nextConnectionID: UInt64
    /// Connections to upstreams (the HTTP client), by descriptor, and the idle ones by upstream.
    var upstreams: [Int32: UpstreamConnection] = [:]
    var idleUpstreams: [ClientEndpoint: IdleUpstreams] = [:]
    /// The upstream sockets of `CONNECT` tunnels, by descriptor, with the client's connection.
    var tunnelUpstreams: [Int32: Connection] = [:]
    /// The loop's thread, once it runs: work for this loop that arrives on it runs at once.
    private(set) var threadID: UInt = 0
    private var acceptPausedUntil: Int64 = 0
    private var listenerInterest: Interest = []
    private var acceptRanSinceLook = false
    private var nextAssignee = 0
    private var nextSweep: Int64 = 0
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Output scratch buffers, lent to connections while they write.
    let scratchPool = ScratchPool()

    private var dateSecond = -1
    /// The end of a head, formatted once per second: `Date`, `Server`, the `Connection` field the
    /// response needs, and the empty line. One copy per response instead of three or four.
    @exclusivity(unchecked) private(set) var headEndKeepAlive: [UInt8] = []
    @exclusivity(unchecked) private(set) var headEndKeepAlive10: [UInt8] = []
    @exclusivity(unchecked) private(set) var headEndClose: [UInt8] = []

    init(
        index: Int,
        handler: @escaping Handler,
        configuration: ServerConfiguration,
        listeners: [Int32],
        shared: LoopGroupState,
        finished: @escaping @Sendable () -> Void
    ) throws(SocketError) {
        self.index = index
        self.handler = handler
        self.configuration = configuration
        self.listeners = index == 0 ? listeners : []
        self.shared = shared
        self.finished = finished
        self.mailbox = try Mailbox(onError: configuration.onLoopError)
        self.selector = try Selectors.make(configuration.selector)
        self.nextConnectionID = UInt64(index) << 48
        self.readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        do {
            try selector.add(mailbox.wakeRead, .read)
            for fd in self.listeners { try selector.add(fd, []) }
        } catch {
            selector.close()
            readBuffer.deallocate()
            throw error
        }
    }

    deinit {
        readBuffer.deallocate()
    }

    func start(name: String) {
        SystemThread.start(name: name, stackSize: 1 << 20) { [self] in
            threadID = Posix.currentThreadID()
            Posix.blockBrokenPipeSignal()
            run()
            finished()
        }
    }

    /// From any thread: stop accepting and wind down within the grace period.
    func requestStop() { mailbox.post(.stop) }

    func scheduleTimer(at deadline: Int64, for connection: Connection) {
        timers.schedule(at: deadline, connectionID: connection.id, fd: connection.fd)
    }

    private func refreshDate() {
        let second = Posix.wallClockSeconds()
        guard second != dateSecond else { return }
        dateSecond = second
        let dateAndServerLines = Array(
            "Date: \(DateFormats.imfFixdate(epochSeconds: second))\r\nServer: \(configuration.serverName)\r\n".utf8
        )
        headEndKeepAlive = dateAndServerLines + Array("\r\n".utf8)
        headEndKeepAlive10 = dateAndServerLines + Array("Connection: keep-alive\r\n\r\n".utf8)
        headEndClose = dateAndServerLines + Array("Connection: close\r\n\r\n".utf8)
    }

    // MARK: the loop

    private func run() {
        refreshDate()
        // Locals, not properties: passed `inout`, a property would be checked at run time on every
        // pass. `inbox`, between looks at the mailbox, is empty; the mailbox gets its capacity back.
        var events: [ReadyEvent] = []
        var inbox: [Mailbox.Message] = []
        let afterPass = configuration.afterPass
        while true {
            // What the last pass posted to its own mailbox (answers completed on this loop), and
            // what others posted while it ran (they wrote no wake-up): before waiting, never after.
            while !mailbox.readyToWait() { handleMessages(fromWakeUp: false, &inbox) }
            if isStopping && (connections.isEmpty || now >= stopDeadline) { break }
            // The loop is marked waiting: whatever the hook wakes and posts back writes a
            // wake-up, so the wait below returns at once for it.
            afterPass?()
            updateListenerInterest()
            do {
                try selector.wait(timeoutMilliseconds: waitTimeout(), into: &events)
            } catch {
                configuration.onLoopError?("event loop \(index): \(error)")
                SystemThread.sleep(milliseconds: 10)  // never spin on a broken selector
            }
            mailbox.loopAwoke()
            now = Posix.monotonicMilliseconds()
            refreshDate()
            for event in events {
                if event.fd == mailbox.wakeRead { handleMessages(fromWakeUp: true, &inbox) } else { dispatch(event) }
            }
            fireTimers()
            if now >= nextSweep { sweep() }
        }
        for connection in connections.all {
            connection.close()
            remove(connection)
        }
        for upstream in Array(upstreams.values) {
            upstream.close()
            removeUpstream(upstream)
        }
        selector.close()
        group = []  // the loops refer to each other; let them go
    }

    private func waitTimeout() -> Int32 {
        var deadline = nextSweep
        if let t = timers.earliest { deadline = min(deadline, t) }
        if acceptPausedUntil > now { deadline = min(deadline, acceptPausedUntil) }
        let wait = deadline - Posix.monotonicMilliseconds()
        return Int32(clamping: max(0, min(wait, 1000)))
    }

    private func dispatch(_ event: ReadyEvent) {
        if listeners.contains(event.fd) {
            acceptConnections(from: event.fd)
            return
        }
        // Connections first: a client's event never reads `upstreams`, a class property whose
        // every access the runtime checks for exclusivity (some 90 instructions).
        guard let connection = connections[event.fd] else {
            if let upstream = upstreams[event.fd] {
                handleUpstreamEvent(event, upstream)
            } else if let owner = tunnelUpstreams[event.fd], !owner.isClosed {
                owner.handleTunnelUpstreamEvent(event)
                settle(owner)
            }
            return
        }
        guard !connection.isClosed else { return }
        if case .tunneling(let relay) = connection.phase {
            connection.handleTunnelClientEvent(relay, event)
            settle(connection)
            return
        }
        if event.writable { connection.flush() }
        if (event.readable || event.failed) && !connection.isClosed { connection.handleReadable() }
        settle(connection)
    }

    /// After anything happened to a connection: forget it if it closed, else tell the selector
    /// if what it waits for changed (only then: no per-wake rebuild).
    func settle(_ connection: Connection) {
        if case .tunneling(let relay) = connection.phase { connection.settleTunnel(relay) }
        if connection.isClosed {
            remove(connection)
            return
        }
        let wanted = connection.interest
        guard wanted != connection.registeredInterest else { return }
        do {
            try selector.change(connection.fd, from: connection.registeredInterest, to: wanted)
            connection.registeredInterest = wanted
        } catch {
            configuration.onLoopError?("event loop \(index): \(error); closing the connection")
            connection.close()
            remove(connection)
        }
    }

    /// What the mailbox holds, exchanged for `messages` (empty, and empty again on return).
    private func handleMessages(fromWakeUp: Bool, _ messages: inout [Mailbox.Message]) {
        if fromWakeUp { mailbox.drainAndTake(into: &messages) } else { mailbox.take(into: &messages) }
        // Each message is moved out, not copied (a delivered response would be retained field by
        // field and released again): reversed once, then popped from the end in posting order.
        messages.reverse()
        while let message = messages.popLast() {
            switch consume message {
            case .adopt(let fd, let peer):
                adopt(fd: fd, peer: peer)
            case .evictOne:
                // The accepting loop is full and has no idle connection: make room here.
                if let victim = longestIdleConnection() {
                    victim.close(because: Self.evictedForAClient)
                    remove(victim)
                }
            case .deliver(let id, let fd, let response):
                guard let connection = connections[fd], connection.id == id else { continue }
                connection.completePending(response)
                settle(connection)
            case .streamReady(let id, let fd):
                guard let connection = connections[fd], connection.id == id else { continue }
                connection.pumpStream()
                settle(connection)
            case .task(let work):
                work()
            case .stop:
                beginStopping()
            }
        }
    }

    /// A tunnel's host name resolved off the loop.
    func tunnelResolved(connection id: UInt64, fd: Int32, _ result: Result<[SocketAddress], SocketError>) {
        guard let connection = connections[fd], connection.id == id else { return }
        connection.tunnelResolved(result)
        settle(connection)
    }

    private func beginStopping() {
        guard !isStopping else { return }
        isStopping = true
        stopDeadline = now + configuration.shutdownGraceMilliseconds
        for connection in connections.all {
            connection.beginShutdown()
            settle(connection)
        }
        // Idle upstream connections serve no one any more.
        for upstream in idleUpstreams.values.flatMap({ $0.connections }) {
            upstream.close()
            removeUpstream(upstream)
        }
    }

    // MARK: accepting (loop 0)

    private func updateListenerInterest() {
        guard !listeners.isEmpty else { return }
        // Slots are taken only by accepting, on this loop: while the listeners are watched and no
        // accept ran since the last look, there is still room, and the shared slots' lock (taken
        // on every pass, so on every request of this loop) need not be.
        if listenerInterest == .read, !isStopping, !acceptRanSinceLook, !listenerChangeFailed { return }
        acceptRanSinceLook = false
        let wanted: Interest =
            !isStopping && now >= acceptPausedUntil && (shared.slots.hasRoom || shared.anyEvictable) ? .read : []
        guard wanted != listenerInterest else { return }
        do {
            for fd in listeners { try selector.change(fd, from: listenerInterest, to: wanted) }
            listenerInterest = wanted
        } catch {
            // Kept as it was, so the next pass tries again; said once, not on every pass.
            if !listenerChangeFailed { configuration.onLoopError?("event loop \(index): listener interest: \(error)") }
            listenerChangeFailed = true
            return
        }
        listenerChangeFailed = false
    }

    /// Accepts pending connections and hands them to the loops in turn. When the server is at
    /// `maxConnections`, a new client does not wait for an idle keep-alive connection to time
    /// out: this loop closes its longest-idle connection to make room (as nginx does), or asks a
    /// loop that has one to close it and checks again shortly. With none idle, new clients wait
    /// in the backlog until a slot frees.
    private func acceptConnections(from listener: Int32) {
        acceptRanSinceLook = true
        var evictionsForDescriptors = 0
        var adoptHere = false
        for _ in 0..<64 {
            var victim: Connection?
            if !shared.slots.reserve() {
                if let local = longestIdleConnection() {
                    victim = local
                } else {
                    if let loop = shared.loopWithEvictable(preferring: index), loop != index {
                        group[loop].mailbox.post(.evictOne)
                    }
                    acceptPausedUntil = now + 50
                    return
                }
            }
            switch Sockets.accept(listener) {
            case .accepted(let fd, let peer):
                if let victim {
                    // Accepted first, so only a client that is really there costs a connection.
                    victim.close(because: Self.evictedForAClient)
                    remove(victim)
                    shared.slots.forceReserve()
                    adopt(fd: fd, peer: peer)
                } else if adoptHere {
                    // Into the place of the connection closed for its descriptor: handed to
                    // another loop, it would leave this one to close its newest connections next.
                    adoptHere = false
                    adopt(fd: fd, peer: peer)
                } else {
                    let target = group[nextAssignee % group.count]
                    nextAssignee &+= 1
                    if target === self {
                        adopt(fd: fd, peer: peer)
                    } else {
                        target.mailbox.post(.adopt(fd: fd, peer: peer))
                    }
                }
            case .wouldBlock:
                if victim == nil { shared.slots.release(1) }
                return
            case .outOfDescriptors:
                if victim == nil { shared.slots.release(1) }
                // Descriptors ran out before connection slots did (a low `ulimit -n`): an idle
                // connection gives its descriptor to the waiting client, as it gives its slot at
                // `maxConnections`; otherwise nobody new could connect until one timed out.
                if evictionsForDescriptors < Self.evictionsPerAcceptForDescriptors,
                    let idle = victim ?? longestIdleConnection()
                {
                    evictionsForDescriptors += 1
                    idle.close(because: "idle, closed for a new client: the server ran out of descriptors")
                    remove(idle)
                    adoptHere = true
                    continue
                }
                if let loop = shared.loopWithEvictable(preferring: index), loop != index {
                    group[loop].mailbox.post(.evictOne)
                    acceptPausedUntil = now + 50
                    return
                }
                acceptPausedUntil = now + 100
                return
            case .retry:
                if victim == nil { shared.slots.release(1) }
            }
        }
    }

    /// Idle connections closed for descriptors in one round of accepting: each frees one for the
    /// next accept, so more than a few means something else takes them; then wait instead.
    private static let evictionsPerAcceptForDescriptors = 16
    /// Why an idle connection (an intercepted tunnel between requests, say) was closed for another.
    private static let evictedForAClient = "idle, closed for a new client at the connection limit"

    private func adopt(fd: Int32, peer: String) {
        guard !isStopping else {
            Posix.close(fd)
            shared.slots.release(1)
            return
        }
        nextConnectionID += 1
        let connection = Connection(id: nextConnectionID, fd: fd, peer: peer, loop: self)
        do {
            try selector.add(fd, connection.interest)
            connection.registeredInterest = connection.interest
            connections.insert(connection)
        } catch {
            configuration.onLoopError?("event loop \(index): \(error); refusing a connection")
            Posix.close(fd)
            shared.slots.release(1)
        }
    }

    private func longestIdleConnection() -> Connection? {
        var best: Connection?
        for connection in connections.inPlace where connection.isEvictable {
            // Ties (the clock is in milliseconds) go to the older connection.
            if let current = best, (current.lastActivity, current.id) <= (connection.lastActivity, connection.id) {
                continue
            }
            best = connection
        }
        return best
    }

    // MARK: time

    private func fireTimers() {
        for entry in timers.popDue(now: now) {
            if let connection = connections[entry.fd], connection.id == entry.connectionID {
                connection.timerFired()
                settle(connection)
            } else if let upstream = upstreams[entry.fd], upstream.id == entry.connectionID {
                upstream.timerFired(deadline: entry.deadline)
                settleUpstream(upstream)
            }
        }
    }

    /// Timeouts are checked a few times a second; they are coarse by nature.
    private func sweep() {
        nextSweep = now + 250
        var evictable = 0
        for connection in connections.all {
            connection.checkTimeouts()
            if isStopping && !connection.isClosed { connection.beginShutdown() }
            settle(connection)
            if connection.isEvictable { evictable += 1 }
        }
        shared.setEvictable(evictable, loop: index)
    }

    private func remove(_ connection: Connection) {
        guard connections.remove(connection) else { return }
        selector.forgetClosed(connection.fd)
        shared.slots.release(1)
    }
}
