import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// A blocking TCP client for tests that need exact bytes on the wire: malformed requests,
/// pipelining, half-sent requests, resets. Every read has a deadline (poll), never a sleep.
public final class WireConnection {
    public enum Failure: Error {
        case connect(Int32)
        case timeout
    }

    public let fd: Int32
    private var buffer: [UInt8] = []
    public private(set) var sawReset = false

    /// - `receiveBuffer`: SO_RCVBUF before connecting, for a client that reads slowly and must
    ///   not let the kernel hide it behind a large buffer.
    public init(port: Int, host: String = "127.0.0.1", receiveBuffer: Int32? = nil) throws {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var info: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &info) == 0, let ai = info else { throw Failure.connect(-1) }
        defer { freeaddrinfo(ai) }
        let s = socket(ai.pointee.ai_family, ai.pointee.ai_socktype, 0)
        guard s >= 0 else { throw Failure.connect(errno) }
        if var size = receiveBuffer {
            setsockopt(s, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        guard connect(s, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 else {
            let e = errno
            _ = Self.systemClose(s)
            throw Failure.connect(e)
        }
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(s, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        fd = s
    }

    /// A connection accepted elsewhere (`LoopbackListener`), now this one's to read and close.
    public init(adopting descriptor: Int32) {
        fd = descriptor
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Closed exactly once: in a test process the server shares the descriptor table, so a second
    /// close could hit a server socket that reused the number.
    private var isClosed = false

    deinit { close() }

    public func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = Self.systemClose(fd)
    }

    public func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            #else
            let n = bytes.withUnsafeBytes { Darwin.send(fd, $0.baseAddress! + offset, bytes.count - offset, 0) }
            #endif
            if n <= 0 { return }
            offset += n
        }
    }

    public func send(_ text: String) { send(Array(text.utf8)) }

    /// Sends everything; false when the peer stopped taking bytes first (closed or reset).
    @discardableResult
    public func sendAll(_ bytes: ArraySlice<UInt8>) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            #if canImport(Glibc)
            let n = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL))
            }
            #else
            let n = bytes[offset...].withUnsafeBytes { Darwin.send(fd, $0.baseAddress!, $0.count, 0) }
            #endif
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Reads what arrives within the deadline; false on EOF or reset.
    @discardableResult
    private func fill(timeoutMilliseconds: Int32, max: Int = 65_536) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, timeoutMilliseconds) > 0 else { return true }
        var chunk = [UInt8](repeating: 0, count: Swift.min(max, 65_536))
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            buffer += chunk[0..<n]
            return true
        }
        if n < 0 && errno == ECONNRESET { sawReset = true }
        return false
    }

    /// Everything until the server closes (or the deadline passes).
    public func readUntilClose(timeoutMilliseconds: Int = 5_000) -> (bytes: [UInt8], closed: Bool) {
        let deadline = Self.now() + timeoutMilliseconds
        while Self.now() < deadline {
            if !fill(timeoutMilliseconds: 50) {
                defer { buffer = [] }
                return (buffer, true)
            }
        }
        return (buffer, false)
    }

    /// Everything up to and including the first `suffix` (or all that came, if the server
    /// closes or the deadline passes first); bytes after it stay for the next read.
    public func readUntil(suffix: String, timeoutMilliseconds: Int = 5_000) -> [UInt8] {
        let end = Array(suffix.utf8)
        let deadline = Self.now() + timeoutMilliseconds
        var searchFrom = 0
        while true {
            if let at = Self.find(end, in: buffer, from: searchFrom) {
                let result = Array(buffer[..<(at + end.count)])
                buffer.removeFirst(at + end.count)
                return result
            }
            searchFrom = max(0, buffer.count - end.count + 1)
            guard Self.now() < deadline, fill(timeoutMilliseconds: 50) else { break }
        }
        defer { buffer = [] }
        return buffer
    }

    /// Reads and discards until the bytes seen end with `suffix`; returns how many were read.
    /// For large bodies whose content does not matter: memory stays flat.
    public func discardUntil(suffix: String, timeoutMilliseconds: Int = 30_000) -> Int {
        let end = Array(suffix.utf8)
        let deadline = Self.now() + timeoutMilliseconds
        var count = 0
        var tail: [UInt8] = []
        while Self.now() < deadline {
            count += buffer.count
            tail = Array((tail + buffer).suffix(end.count))
            buffer.removeAll(keepingCapacity: true)
            if tail == end { return count }
            if !fill(timeoutMilliseconds: 50) { return count }
        }
        return count
    }

    /// True when the server closes within the deadline (EOF or reset), reading past any data.
    public func waitForClose(timeoutMilliseconds: Int = 5_000) -> Bool {
        readUntilClose(timeoutMilliseconds: timeoutMilliseconds).closed
    }

    /// One response, framed by Content-Length (or none for HEAD / 1xx / 204 / 304).
    public func readResponse(timeoutMilliseconds: Int = 5_000, isHead: Bool = false) throws -> WireResponse {
        let deadline = Self.now() + timeoutMilliseconds
        while true {
            if let end = Self.find([13, 10, 13, 10], in: buffer) {
                let head = String(decoding: buffer[0..<end], as: UTF8.self)
                var response = WireResponse(head: head)
                let bodiless = isHead || response.status < 200 || response.status == 204 || response.status == 304
                if !bodiless, response.header("Transfer-Encoding")?.lowercased() == "chunked" {
                    buffer.removeFirst(end + 4)
                    response.body = try readChunkedBody(deadline: deadline)
                    return response
                }
                let bodyLength = bodiless ? 0 : Int(response.header("Content-Length") ?? "0") ?? 0
                while buffer.count < end + 4 + bodyLength {
                    guard Self.now() < deadline, fill(timeoutMilliseconds: 50) else { throw Failure.timeout }
                }
                response.body = Array(buffer[(end + 4)..<(end + 4 + bodyLength)])
                buffer.removeFirst(end + 4 + bodyLength)
                return response
            }
            guard Self.now() < deadline, fill(timeoutMilliseconds: 50) else { throw Failure.timeout }
        }
    }

    /// A chunked body's data (extensions and trailers skipped); throws if the stream ends first.
    private func readChunkedBody(deadline: Int) throws -> [UInt8] {
        var body: [UInt8] = []
        func line() throws -> String {
            while true {
                if let end = Self.find([13, 10], in: buffer) {
                    defer { buffer.removeFirst(end + 2) }
                    return String(decoding: buffer[0..<end], as: UTF8.self)
                }
                guard Self.now() < deadline, fill(timeoutMilliseconds: 50) else { throw Failure.timeout }
            }
        }
        while true {
            let sizeText = try line().split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw Failure.timeout
            }
            if size == 0 {
                while try !line().isEmpty {}
                return body
            }
            while buffer.count < size + 2 {
                guard Self.now() < deadline, fill(timeoutMilliseconds: 50) else { throw Failure.timeout }
            }
            body += buffer[0..<size]
            buffer.removeFirst(size + 2)
        }
    }

    /// Up to `max` bytes: what is buffered first, else one read within the deadline. Empty at
    /// end of file or when nothing came.
    public func readSome(max: Int, timeoutMilliseconds: Int32 = 5_000) -> [UInt8] {
        if buffer.isEmpty { _ = fill(timeoutMilliseconds: timeoutMilliseconds, max: max) }
        let n = Swift.min(max, buffer.count)
        defer { buffer.removeFirst(n) }
        return Array(buffer[0..<n])
    }

    /// True when nothing arrives within the window (the server is holding the response).
    public func staysSilent(milliseconds: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return buffer.isEmpty && poll(&p, 1, milliseconds) == 0
    }

    /// Exactly `count` bytes, or fewer if the peer closes or the deadline passes first.
    public func readBytes(count: Int, timeoutMilliseconds: Int = 30_000) -> [UInt8] {
        let deadline = Self.now() + timeoutMilliseconds
        while buffer.count < count, Self.now() < deadline, fill(timeoutMilliseconds: 50) {}
        let n = Swift.min(count, buffer.count)
        defer { buffer.removeFirst(n) }
        return Array(buffer[0..<n])
    }

    #if os(Linux)
    /// This side's end (`shutdownWrite`) was acknowledged by the peer: its kernel took every byte
    /// before it (TCP_INFO's state FIN_WAIT2 or TIME_WAIT, or CLOSE after LAST_ACK when the peer
    /// ended first).
    public var endAcknowledged: Bool {
        var info = [UInt8](repeating: 0, count: 256)
        var length = socklen_t(info.count)
        guard getsockopt(fd, Int32(IPPROTO_TCP), Int32(TCP_INFO), &info, &length) == 0 else { return false }
        return [5, 6, 7].contains(info[0])
    }
    #endif

    /// Half-close: no more bytes from this side (FIN); reading goes on.
    public func shutdownWrite() {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Abort with RST instead of FIN.
    public func reset() {
        var l = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
        close()
    }

    /// Waits without a connection to watch (between polls of some other condition).
    @discardableResult
    public static func staysSilentFor(milliseconds: Int32) -> Bool {
        var p = pollfd(fd: -1, events: 0, revents: 0)
        return poll(&p, 1, milliseconds) == 0
    }

    public static func now() -> Int {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int(ts.tv_sec) * 1000 + Int(ts.tv_nsec) / 1_000_000
    }

    public static func find(_ needle: [UInt8], in hay: [UInt8], from start: Int = 0) -> Int? {
        guard hay.count >= needle.count, start <= hay.count - needle.count else { return nil }
        for i in start...(hay.count - needle.count)
        where hay[i] == needle[0] && hay[i..<(i + needle.count)].elementsEqual(needle) {
            return i
        }
        return nil
    }

    #if canImport(Glibc)
    static let systemClose = Glibc.close
    #else
    static let systemClose = Darwin.close
    #endif
}

public struct WireResponse {
    public var statusLine: String
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8] = []

    public init(head: String) {
        let lines = head.components(separatedBy: "\r\n")
        statusLine = lines.first ?? ""
        let parts = statusLine.split(separator: " ")
        status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        headers = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// Open descriptors of this process, for leak checks.
public func openDescriptorCount() -> Int {
    #if os(Linux)
    return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count) ?? 0
    #else
    return ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/fd"))?.count) ?? 0
    #endif
}
