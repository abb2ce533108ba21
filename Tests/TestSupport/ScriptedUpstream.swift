import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// A loopback HTTP server for proxy tests that answers exactly what a test scripts, byte for
/// byte and with pauses: chunked bodies, odd casing, a body dribbled over seconds, a close in
/// the middle of a body, no answer at all. It records every request as received.
public final class ScriptedUpstream: @unchecked Sendable {
    /// A request as it arrived (head fields in order and casing, body by Content-Length).
    public struct Request: Sendable {
        public let method: String
        public let target: String
        public let headers: [(String, String)]
        public let body: [UInt8]
        /// Which accepted connection carried it (0, 1, ...).
        public let connection: Int

        public func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        public func values(_ name: String) -> [String] {
            headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
        }
        public var names: [String] { headers.map(\.0) }
    }

    public enum Step: Sendable {
        case send([UInt8])
        case pause(milliseconds: Int)
        /// Close after what was sent (FIN).
        case close
        /// Send nothing more and keep the connection open until the upstream stops.
        case hang
    }

    public let port: Int
    private let listener: Int32
    private let handler: @Sendable (Request) -> [Step]
    private let lock = NSLock()
    private var received: [Request] = []
    /// Requests whose steps have all been carried out (signalled on `answeredCondition`).
    private var answered = 0
    private let answeredCondition = NSCondition()
    private var accepted = 0
    private var open: [Int32] = []
    private var stopped = false
    /// Broadcast after each request is recorded, for `waitForRequests`.
    private let arrived = NSCondition()

    /// Answers each request with the steps `handler` gives (then waits for the next request on
    /// the same connection, unless a step closed it).
    public init(handler: @escaping @Sendable (Request) -> [Step]) throws {
        self.handler = handler
        let fd = socket(AF_INET, Self.streamType, 0)
        guard fd >= 0 else { throw WireConnection.Failure.connect(errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            _ = WireConnection.systemClose(fd)
            throw WireConnection.Failure.connect(errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    deinit { stop() }

    public var requests: [Request] { lock.withLock { received } }

    /// Blocks until `count` requests have arrived or `deadline` passes (no polling: woken as
    /// each request is recorded); the requests so far either way.
    @discardableResult
    public func waitForRequests(_ count: Int, until deadline: Date) -> [Request] {
        arrived.lock()
        defer { arrived.unlock() }
        while requests.count < count {
            if !arrived.wait(until: deadline) { break }
        }
        return requests
    }

    public var connectionCount: Int { lock.withLock { accepted } }

    /// Waits until the steps of `count` requests have all been carried out (bytes a script sends
    /// after a response are then in the proxy's socket); false at the timeout.
    public func waitUntilAnswered(_ count: Int, timeoutMilliseconds: Int = 10_000) -> Bool {
        let deadline = Date().addingTimeInterval(Double(timeoutMilliseconds) / 1000)
        answeredCondition.lock()
        defer { answeredCondition.unlock() }
        while answered < count {
            guard answeredCondition.wait(until: deadline) else { return answered >= count }
        }
        return true
    }

    private func markAnswered() {
        answeredCondition.lock()
        answered += 1
        answeredCondition.broadcast()
        answeredCondition.unlock()
    }
    /// Connections still open (the proxy has not closed its side).
    public var openConnectionCount: Int { lock.withLock { open.count } }

    /// Closes the listener and every connection (unblocking hung ones). Once: a second call
    /// must not close the listener's number again, which may belong to another file by then.
    public func stop() {
        // Under the lock: a connection's thread takes its descriptor out of `open` (under the
        // lock) before closing it, so every one here is still this upstream's.
        let first: Bool = lock.withLock {
            guard !stopped else { return false }
            stopped = true
            for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
            return true
        }
        guard first else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        _ = WireConnection.systemClose(listener)
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            var one: Int32 = 1
            #if canImport(Darwin)
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            // Each send goes out when the script says, not when Nagle's algorithm lets it (held
            // until the last segment is acknowledged, which a delayed ACK puts off up to 40 ms).
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let index: Int? = lock.withLock {
                guard !stopped else { return nil }
                defer { accepted += 1 }
                open.append(fd)
                return accepted
            }
            guard let index else {
                _ = WireConnection.systemClose(fd)
                return
            }
            Thread.detachNewThread { [self] in serve(fd, connection: index) }
        }
    }

    private func serve(_ fd: Int32, connection: Int) {
        defer {
            lock.withLock { open.removeAll { $0 == fd } }
            _ = WireConnection.systemClose(fd)
        }
        var buffer: [UInt8] = []
        while let request = readRequest(fd, &buffer, connection: connection) {
            lock.withLock { received.append(request) }
            arrived.lock()
            arrived.broadcast()
            arrived.unlock()
            // Counted however the steps end (a close or a failed write returns early).
            defer { markAnswered() }
            for step in handler(request) {
                switch step {
                case .send(let bytes):
                    guard write(fd, bytes) else { return }
                case .pause(let milliseconds):
                    var p = pollfd(fd: fd, events: 0, revents: 0)
                    _ = poll(&p, 0, Int32(milliseconds))
                case .close:
                    return
                case .hang:
                    var scratch = [UInt8](repeating: 0, count: 1024)
                    while scratch.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) > 0 {}
                    return
                }
            }
        }
    }

    private func readRequest(_ fd: Int32, _ buffer: inout [UInt8], connection: Int) -> Request? {
        var headEnd: Int?
        while headEnd == nil {
            headEnd = WireConnection.find([13, 10, 13, 10], in: buffer)
            if headEnd == nil && !fill(fd, &buffer) { return nil }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count == 3 else { return nil }
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0
        while buffer.count < length {
            guard fill(fd, &buffer) else { return nil }
        }
        let body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return Request(
            method: String(parts[0]),
            target: String(parts[1]),
            headers: headers,
            body: body,
            connection: connection
        )
    }

    private func fill(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer += chunk[0..<n]
        return true
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            #else
            let n = bytes.withUnsafeBytes { Darwin.send(fd, $0.baseAddress! + offset, bytes.count - offset, 0) }
            #endif
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    #if canImport(Glibc)
    static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
    static let streamType = SOCK_STREAM
    #endif
}

extension ScriptedUpstream.Step {
    /// A whole response: status line, the fields as given (casing and repeats kept), the body
    /// with a Content-Length unless a field frames it already.
    public static func response(
        _ status: Int,
        _ reason: String = "OK",
        headers: [(String, String)] = [],
        body: [UInt8] = [],
        contentLength: Bool = true
    ) -> ScriptedUpstream.Step {
        var text = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if contentLength { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        return .send(Array(text.utf8) + body)
    }
}
