import Dispatch
import HTTP1
import SystemSupport

/// An HTTP/1.1 server on POSIX sockets.
///
/// `start()` binds and listens on the caller's thread and throws if it cannot (a busy port is an
/// error at once, never a hang). `stop()` stops accepting, lets in-flight responses finish within
/// the grace period, closes everything and returns when the port is free.
package final class HTTP1Server: Sendable {
    package let configuration: ServerConfiguration
    private let handler: Handler
    private let state = Locked(State())

    private struct State {
        var listeners: [Int32] = []
        var addresses: [SocketAddress] = []
        var loops: [EventLoop] = []
        var shared: LoopGroupState?
        var running = false
        var starting = false
        var stopped = DispatchGroup()
    }

    package init(configuration: ServerConfiguration = ServerConfiguration(), handler: @escaping Handler) {
        self.configuration = configuration
        self.handler = handler
    }

    /// For handlers that always answer at once.
    package convenience init(
        configuration: ServerConfiguration = ServerConfiguration(),
        respond: @escaping @Sendable (IncomingRequest) -> OutgoingResponse
    ) {
        self.init(configuration: configuration) { .now(respond($0)) }
    }

    /// Binds every address of `configuration.host` and starts the event loops. Calling it while
    /// running does nothing (a second call once leaked the first call's listeners and loops).
    package func start() throws(SocketError) {
        // Claimed under the lock, so two racing calls cannot both start.
        guard
            state.withLock({ s -> Bool in
                guard !s.running && !s.starting else { return false }
                s.starting = true
                return true
            })
        else { return }
        defer { state.withLock { $0.starting = false } }
        let addresses = try SocketAddress.resolve(host: configuration.host, port: configuration.port)
        var listeners: [Int32] = []
        var bound: [SocketAddress] = []
        var port = configuration.port
        do throws(SocketError) {
            for var address in addresses {
                // Every address gets the port the first one was given (port 0 picks it once).
                if port != 0 { address.setPort(port) }
                let fd = try Sockets.listen(
                    on: address,
                    v6Only: addresses.count > 1,
                    backlog: configuration.listenBacklog
                )
                listeners.append(fd)
                if let local = Sockets.localAddress(fd) {
                    bound.append(local)
                    port = local.port
                }
            }
        } catch {
            listeners.forEach(Posix.close)
            throw error
        }
        let loopCount = max(1, configuration.loopCount)
        let shared = LoopGroupState(loops: loopCount, maxConnections: configuration.maxConnections)
        let group = DispatchGroup()
        var loops: [EventLoop] = []
        do throws(SocketError) {
            for index in 0..<loopCount {
                loops.append(
                    try EventLoop(
                        index: index,
                        handler: handler,
                        configuration: configuration,
                        listeners: listeners,
                        shared: shared,
                        finished: { group.leave() }
                    )
                )
            }
        } catch {
            listeners.forEach(Posix.close)
            throw error
        }
        for loop in loops {
            loop.group = loops
            group.enter()
        }
        state.withLock {
            $0.listeners = listeners
            $0.addresses = bound
            $0.loops = loops
            $0.shared = shared
            $0.running = true
            $0.stopped = group
        }
        for (index, loop) in loops.enumerated() { loop.start(name: "stubserver-loop-\(index)") }
    }

    /// The bound port (the real one when the configuration asked for 0).
    package var port: Int { state.withLock { $0.addresses.first?.port ?? 0 } }

    /// Every bound address, `127.0.0.1:PORT` / `[::1]:PORT`.
    package var boundAddresses: [String] { state.withLock { $0.addresses.map(\.description) } }

    /// `http://127.0.0.1:PORT` (brackets for IPv6): an address, not `localhost`, which may
    /// resolve to an address the server does not listen on.
    package var baseURL: String {
        state.withLock { s in
            guard let a = s.addresses.first else { return "" }
            return "http://\(a.isIPv6 ? "[\(a.host)]" : a.host):\(a.port)"
        }
    }

    /// `https://127.0.0.1:PORT` when the port speaks TLS too (`ServerConfiguration.tls`), else nil.
    package var secureBaseURL: String? {
        guard configuration.tls != nil else { return nil }
        let plain = baseURL
        return plain.isEmpty ? nil : "https" + plain.dropFirst(4)
    }

    /// The event loops, while running (the HTTP client runs its exchanges on them).
    var eventLoops: [EventLoop] { state.withLock { $0.loops } }

    /// Open client connections right now.
    package var connectionCount: Int { state.withLock { $0.shared?.slots.count ?? 0 } }

    /// Open long-lived streams (server-sent events) right now.
    package var streamCount: Int { state.withLock { $0.shared?.streams.value ?? 0 } }

    /// Stops and returns once every loop has ended and the listeners are closed.
    package func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            stopInBackground { continuation.resume() }
        }
    }

    /// Stops, blocking the calling thread until every loop has ended and the listeners are
    /// closed. It waits on the calling thread itself: waiting for a block queued on a global
    /// queue would deadlock when the caller is one of that queue's (few) threads.
    package func stopAndWait() {
        let group = requestStop()
        group.wait()
        closeListeners()
    }

    /// Stops without waiting (for `deinit`s and other places that must not block).
    package func stopInBackground() {
        stopInBackground {}
    }

    private func requestStop() -> DispatchGroup {
        let (loops, group, wasRunning) = state.withLock { s -> ([EventLoop], DispatchGroup, Bool) in
            let running = s.running
            s.running = false
            return (s.loops, s.stopped, running)
        }
        if wasRunning { loops.forEach { $0.requestStop() } }
        return group
    }

    private func closeListeners() {
        let listeners = state.withLock { s -> [Int32] in
            let l = s.listeners
            s.listeners = []
            s.loops = []
            return l
        }
        listeners.forEach(Posix.close)
    }

    private static let stopQueue = DispatchQueue(label: "stubserver.server.stop")

    private func stopInBackground(_ completion: @escaping @Sendable () -> Void) {
        let group = requestStop()
        // A queue of its own, not `.global()`: the global queue's width is the core count, and
        // threads blocked elsewhere in the process (a caller's `stopAndWait`, Swift Testing's
        // async tests on the same pool) could hold the completion back for seconds (seen: a
        // stop with nothing to wait for took 5 s in a full parallel test run on 2 cores). A
        // serial queue gets a thread of its own when the pool is busy.
        group.notify(queue: Self.stopQueue) { [self] in
            closeListeners()
            completion()
        }
    }

    /// Blocks until the server has stopped (for the command line's main thread).
    package func waitUntilStopped() {
        let group = state.withLock { $0.stopped }
        group.wait()
    }
}
