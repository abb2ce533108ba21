import Foundation
import HTTP1
import SystemSupport

/// One thread running `poll` over its own connections, the shared listeners and a wake-up pipe.
///
/// Every loop polls the listeners; a non-blocking accept that loses the race gets EAGAIN, which
/// is harmless. Everything a loop owns (connections, timers, the read buffer) is touched only by
/// its thread; other threads reach it only through `requestStop`, which writes to the pipe.
final class EventLoop: ConnectionContext, @unchecked Sendable {
    let handler: HTTPHandler
    let configuration: ServerConfiguration
    private let listeners: [Int32]
    private let connectionSlots: ConnectionSlots
    private let wakeup: (read: Int32, write: Int32)
    private let stopRequest = Locked(false)
    private let finished: @Sendable () -> Void

    private(set) var now: Int64 = Posix.monotonicMilliseconds()
    private(set) var isStopping = false
    private var stopDeadline: Int64 = .max
    private var connections: [Int32: Connection] = [:]
    private var timers = TimerQueue()
    private var nextConnectionID: UInt64
    private var acceptPausedUntil: Int64 = 0
    private var nextSweep: Int64 = 0
    private let readBuffer: UnsafeMutableRawBufferPointer
    private var pollSet: [Posix.PollDescriptor] = []
    private var pollOwners: [Connection?] = []

    private var dateSecond = -1
    /// The end of a head, formatted once per second: `Date`, `Server`, the `Connection` field the
    /// response needs, and the empty line. One copy per response instead of three or four.
    private(set) var headEndKeepAlive: [UInt8] = []
    private(set) var headEndKeepAlive10: [UInt8] = []
    private(set) var headEndClose: [UInt8] = []

    init(index: Int, handler: @escaping HTTPHandler, configuration: ServerConfiguration,
         listeners: [Int32], slots: ConnectionSlots, finished: @escaping @Sendable () -> Void) throws(SocketError) {
        self.handler = handler
        self.configuration = configuration
        self.listeners = listeners
        self.connectionSlots = slots
        self.finished = finished
        self.wakeup = try Posix.makePipe()
        self.nextConnectionID = UInt64(index) << 48
        self.readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
    }

    deinit {
        readBuffer.deallocate()
        Posix.close(wakeup.read)
        Posix.close(wakeup.write)
    }

    func start(name: String) {
        let thread = Thread { [self] in
            run()
            finished()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// From any thread: stop accepting and wind down within the grace period.
    func requestStop() {
        stopRequest.withLock { $0 = true }
        Posix.writeByte(wakeup.write)
    }

    // MARK: ConnectionContext

    func scheduleTimer(at deadline: Int64, for connection: Connection) {
        timers.schedule(at: deadline, connectionID: connection.id, fd: connection.fd)
    }

    private func refreshDate() {
        let second = Posix.wallClockSeconds()
        guard second != dateSecond else { return }
        dateSecond = second
        let dateAndServerLines = Array("Date: \(DateFormats.imfFixdate(epochSeconds: second))\r\nServer: \(configuration.serverName)\r\n".utf8)
        headEndKeepAlive = dateAndServerLines + Array("\r\n".utf8)
        headEndKeepAlive10 = dateAndServerLines + Array("Connection: keep-alive\r\n\r\n".utf8)
        headEndClose = dateAndServerLines + Array("Connection: close\r\n\r\n".utf8)
    }

    // MARK: the loop

    private func run() {
        refreshDate()
        while true {
            buildPollSet()
            let ready = Posix.poll(&pollSet, timeoutMilliseconds: pollTimeout())
            now = Posix.monotonicMilliseconds()
            refreshDate()
            if ready > 0 { dispatchReadiness() }
            fireTimers()
            if now >= nextSweep { sweep() }
            if isStopping && (connections.isEmpty || now >= stopDeadline) { break }
        }
        for connection in connections.values { connection.close() }
        connectionSlots.release(connections.count)
        connections.removeAll()
    }

    /// Whether to watch the listeners: with room, or, when the server is full, while this loop
    /// holds an idle connection it can close to make room (see `acceptConnections`).
    private var accepting: Bool {
        guard !isStopping, now >= acceptPausedUntil else { return false }
        return connectionSlots.hasRoom || hasEvictable
    }

    /// Recomputed at every sweep while the server is full.
    private var hasEvictable = false

    private func buildPollSet() {
        pollSet.removeAll(keepingCapacity: true)
        pollOwners.removeAll(keepingCapacity: true)
        pollSet.append(Posix.pollDescriptor(wakeup.read, Posix.pollIn))
        pollOwners.append(nil)
        if accepting {
            for fd in listeners {
                pollSet.append(Posix.pollDescriptor(fd, Posix.pollIn))
                pollOwners.append(nil)
            }
        }
        for connection in connections.values {
            pollSet.append(Posix.pollDescriptor(connection.fd, connection.pollEvents))
            pollOwners.append(connection)
        }
    }

    private func pollTimeout() -> Int32 {
        var deadline = nextSweep
        if let t = timers.earliest { deadline = min(deadline, t) }
        if acceptPausedUntil > now { deadline = min(deadline, acceptPausedUntil) }
        if !connectionSlots.hasRoom { deadline = min(deadline, now + 50) } // another loop may free a slot
        let wait = deadline - Posix.monotonicMilliseconds()
        return Int32(clamping: max(0, min(wait, 1000)))
    }

    private func dispatchReadiness() {
        for index in pollSet.indices {
            let revents = pollSet[index].revents
            guard revents != 0 else { continue }
            let fd = pollSet[index].fd
            guard let connection = pollOwners[index] else {
                if fd == wakeup.read { handleWakeup() } else { acceptConnections(from: fd) }
                continue
            }
            if connection.isClosed { continue }
            if revents & Posix.pollOut != 0 { connection.flush(self) }
            if revents & (Posix.pollIn | Posix.pollErrorOrHangup) != 0, !connection.isClosed {
                connection.handleReadable(readBuffer, context: self)
            }
            if connection.isClosed { remove(connection) }
        }
    }

    private func handleWakeup() {
        Posix.drain(wakeup.read)
        guard stopRequest.withLock({ $0 }), !isStopping else { return }
        isStopping = true
        stopDeadline = now + configuration.shutdownGraceMilliseconds
        for connection in Array(connections.values) {
            connection.beginShutdown(self)
            if connection.isClosed { remove(connection) }
        }
    }

    /// Accepts pending connections. When the server is at `maxConnections`, a new client does
    /// not wait for an idle keep-alive connection to time out: the connection is accepted first
    /// (so only the loop that wins it acts) and this loop's longest-idle connection is closed to
    /// make room, as nginx does with idle keep-alive connections. Without an idle connection to
    /// close, the new one waits in the backlog until a slot frees.
    private func acceptConnections(from listener: Int32) {
        for _ in 0..<64 {
            var victim: Connection?
            if !connectionSlots.reserve() {
                guard let idle = longestIdleConnection() else {
                    hasEvictable = false
                    acceptPausedUntil = now + 50
                    return
                }
                victim = idle
            }
            switch Sockets.accept(listener) {
            case .accepted(let fd, let peer):
                if let victim {
                    victim.close()
                    remove(victim)              // releases the victim's slot...
                    connectionSlots.forceReserve() // ...which the new connection takes
                }
                nextConnectionID += 1
                connections[fd] = Connection(id: nextConnectionID, fd: fd, peer: peer,
                                             limits: configuration.limits, now: now)
            case .wouldBlock:
                if victim == nil { connectionSlots.release(1) }
                return
            case .outOfDescriptors:
                if victim == nil { connectionSlots.release(1) }
                acceptPausedUntil = now + 100
                return
            case .retry:
                if victim == nil { connectionSlots.release(1) }
            }
        }
    }

    private func longestIdleConnection() -> Connection? {
        var best: Connection?
        for connection in connections.values where connection.isEvictable {
            // Ties (the clock is in milliseconds) go to the older connection.
            if let current = best, (current.lastActivity, current.id) <= (connection.lastActivity, connection.id) { continue }
            best = connection
        }
        return best
    }

    private func fireTimers() {
        for entry in timers.popDue(now: now) {
            guard let connection = connections[entry.fd], connection.id == entry.connectionID else { continue }
            connection.timerFired(self)
            if connection.isClosed { remove(connection) }
        }
    }

    /// Timeouts are checked a few times a second; they are coarse by nature.
    private func sweep() {
        nextSweep = now + 250
        hasEvictable = !connectionSlots.hasRoom && connections.values.contains { $0.isEvictable }
        for connection in Array(connections.values) {
            connection.checkTimeouts(self)
            if isStopping && !connection.isClosed { connection.beginShutdown(self) }
            if connection.isClosed { remove(connection) }
        }
    }

    private func remove(_ connection: Connection) {
        guard connections[connection.fd] === connection else { return }
        connections[connection.fd] = nil
        connectionSlots.release(1)
    }
}

/// The server-wide connection cap, shared by the loops. Taken only at accept and close, never
/// per request.
final class ConnectionSlots: @unchecked Sendable {
    private let limit: Int
    private let used = Locked(0)

    init(limit: Int) { self.limit = limit }

    var hasRoom: Bool { used.withLock { $0 < limit } }
    var count: Int { used.withLock { $0 } }

    func reserve() -> Bool {
        used.withLock { n in
            guard n < limit else { return false }
            n += 1
            return true
        }
    }

    func release(_ count: Int) { used.withLock { $0 -= count } }

    /// Takes a slot even at the limit: a connection replacing one just closed.
    func forceReserve() { used.withLock { $0 += 1 } }
}
