#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// A resolved IPv4 or IPv6 socket address.
struct SocketAddress: CustomStringConvertible {
    var storage = sockaddr_storage()
    var length: socklen_t = 0

    var family: Int32 { Int32(storage.ss_family) }
    var isIPv6: Bool { family == AF_INET6 }

    /// Resolves a numeric address or a name (`localhost` gives both loopbacks) for listening.
    static func resolve(host: String, port: Int) throws(SocketError) -> [SocketAddress] {
        var addresses: [SocketAddress] = []
        for address in try lookup(host: host, port: port, flags: AI_PASSIVE | AI_NUMERICSERV).get()
        where !addresses.contains(where: { $0.description == address.description }) {
            addresses.append(address)
        }
        // IPv4 first: a client asking for "localhost" usually tries it first.
        return addresses.sorted { !$0.isIPv6 && $1.isIPv6 }
    }

    /// The IPv4 and IPv6 addresses `getaddrinfo` gives for a host, in its order: the one reading
    /// of its answer behind listening, connecting and numeric addresses.
    static func lookup(host: String, port: Int, flags: Int32) -> Result<[SocketAddress], SocketError> {
        var hints = addrinfo()
        hints.ai_flags = flags
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = LibC.sockStream
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let first = result else {
            let reason = rc == 0 ? "no address" : String(cString: gai_strerror(rc))
            return .failure(.cannotResolve(host: host, reason: reason))
        }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let info = node {
            if let sa = info.pointee.ai_addr, info.pointee.ai_family == AF_INET || info.pointee.ai_family == AF_INET6 {
                var address = SocketAddress()
                address.length = info.pointee.ai_addrlen
                withUnsafeMutableBytes(of: &address.storage) { dst in
                    dst.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: Int(info.pointee.ai_addrlen)))
                }
                addresses.append(address)
            }
            node = info.pointee.ai_next
        }
        return .success(addresses)
    }

    var port: Int {
        withUnsafeBytes(of: storage) { raw in
            if isIPv6 {
                return Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port))
            }
            return Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
        }
    }

    mutating func setPort(_ port: Int) {
        let v6 = isIPv6
        withUnsafeMutableBytes(of: &storage) { raw in
            if v6 {
                var a = raw.load(as: sockaddr_in6.self)
                a.sin6_port = UInt16(port).bigEndian
                raw.storeBytes(of: a, as: sockaddr_in6.self)
            } else {
                var a = raw.load(as: sockaddr_in.self)
                a.sin_port = UInt16(port).bigEndian
                raw.storeBytes(of: a, as: sockaddr_in.self)
            }
        }
    }

    /// The bare address text (`127.0.0.1`, `::1`).
    var host: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        withUnsafeBytes(of: storage) { raw in
            if isIPv6 {
                var a = raw.load(as: sockaddr_in6.self).sin6_addr
                _ = inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count))
            } else {
                var a = raw.load(as: sockaddr_in.self).sin_addr
                _ = inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count))
            }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// 0.0.0.0 or ::.
    var isWildcard: Bool {
        withUnsafeBytes(of: storage) { raw in
            if isIPv6 {
                let a = raw.load(as: sockaddr_in6.self).sin6_addr
                return withUnsafeBytes(of: a) { $0.allSatisfy { $0 == 0 } }
            }
            return raw.load(as: sockaddr_in.self).sin_addr.s_addr == 0
        }
    }

    static func wildcard(family: Int32, port: Int) -> SocketAddress {
        var address = SocketAddress()
        withUnsafeMutableBytes(of: &address.storage) { raw in
            if family == AF_INET6 {
                var a = sockaddr_in6()
                #if canImport(Darwin)
                a.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
                #endif
                a.sin6_family = sa_family_t(AF_INET6)
                a.sin6_port = UInt16(port).bigEndian
                raw.storeBytes(of: a, as: sockaddr_in6.self)
            } else {
                var a = sockaddr_in()
                #if canImport(Darwin)
                a.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
                #endif
                a.sin_family = sa_family_t(AF_INET)
                a.sin_port = UInt16(port).bigEndian
                raw.storeBytes(of: a, as: sockaddr_in.self)
            }
        }
        address.length = socklen_t(
            family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size
        )
        return address
    }

    /// `127.0.0.1:8080` or `[::1]:8080`.
    var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Listening and accepting.
enum Sockets {
    /// socket, SO_REUSEADDR, bind, listen: synchronous, so a busy port throws at start.
    /// Never SO_REUSEPORT: on macOS it lets two servers share a port silently.
    static func listen(on address: SocketAddress, v6Only: Bool, backlog: Int32) throws(SocketError) -> Int32 {
        #if canImport(Darwin)
        // BSD's SO_REUSEADDR lets a specific address (127.0.0.1:8080) bind beside another
        // process listening on the wildcard (0.0.0.0:8080), which would then get some of our
        // connections. Binding the wildcard with the same option fails only if someone holds
        // it (not for TIME_WAIT leftovers of our own last run), so try that first.
        if !address.isWildcard, address.port != 0 {
            try checkWildcardIsFree(like: address)
        }
        #endif
        let fd = socket(address.family, LibC.sockStream, 0)
        guard fd >= 0 else { throw .system(call: "socket", errno: errno) }
        guard Posix.setNonBlockingAndCloseOnExec(fd), Posix.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1) else {
            let e = errno
            Posix.close(fd)
            throw .system(call: "fcntl/setsockopt on the listener", errno: e)
        }
        if address.isIPv6, !Posix.setOption(fd, LibC.ipprotoIPv6, IPV6_V6ONLY, v6Only ? 1 : 0) {
            let e = errno
            Posix.close(fd)
            throw .system(call: "setsockopt IPV6_V6ONLY", errno: e)
        }
        try bind(fd, address)
        guard listenFunction(fd, backlog) == 0 else {
            let e = errno
            Posix.close(fd)
            throw .system(call: "listen", errno: e)
        }
        return fd
    }

    /// Binds or closes the descriptor and throws what a user can act on.
    private static func bind(_ fd: Int32, _ address: SocketAddress) throws(SocketError) {
        var addr = address
        let bound = withUnsafePointer(to: &addr.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bindFunction(fd, $0, addr.length) }
        }
        guard bound != 0 else { return }
        let e = errno
        Posix.close(fd)
        if e == EADDRINUSE { throw .addressInUse(address: address.description) }
        if e == EACCES { throw .permissionDenied(address: address.description) }
        if e == EADDRNOTAVAIL { throw .addressNotAvailable(address: address.description) }
        throw .system(call: "bind \(address)", errno: e)
    }

    #if canImport(Darwin)
    private static func checkWildcardIsFree(like address: SocketAddress) throws(SocketError) {
        let wildcard = SocketAddress.wildcard(family: address.family, port: address.port)
        let probe = socket(address.family, LibC.sockStream, 0)
        guard probe >= 0 else { return }
        Posix.setOption(probe, SOL_SOCKET, SO_REUSEADDR, 1)
        if wildcard.isIPv6 { Posix.setOption(probe, LibC.ipprotoIPv6, IPV6_V6ONLY, 1) }
        do throws(SocketError) {
            try bind(probe, wildcard)
        } catch {
            if case .addressInUse = error { throw .addressInUse(address: address.description) }
            return
        }
        Posix.close(probe)
    }
    #endif

    /// The address the kernel bound, which carries the real port after binding port 0.
    static func localAddress(_ fd: Int32) -> SocketAddress? {
        var address = SocketAddress()
        address.length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        var length = address.length
        let rc = withUnsafeMutablePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        address.length = length
        return rc == 0 ? address : nil
    }

    enum AcceptResult {
        case accepted(fd: Int32, peer: String)
        case wouldBlock
        /// Out of descriptors (EMFILE/ENFILE): stop accepting for a moment instead of spinning.
        case outOfDescriptors
        /// The pending connection went away before we took it; try the next.
        case retry
    }

    static func accept(_ listener: Int32) -> AcceptResult {
        var address = SocketAddress()
        while true {
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &address.storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { acceptFunction(listener, $0, &length) }
            }
            address.length = length
            if fd >= 0 {
                // A socket we cannot make non-blocking would stall the loop: drop it.
                guard Posix.configureAccepted(fd) else {
                    Posix.close(fd)
                    return .retry
                }
                return .accepted(fd: fd, peer: address.description)
            }
            let e = errno
            switch e {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .outOfDescriptors
            default: return .retry  // ECONNABORTED, EPROTO, EPERM (firewall): the next one may work
            }
        }
    }

    #if canImport(Glibc)
    private static let bindFunction = Glibc.bind
    private static let listenFunction = Glibc.listen
    private static let acceptFunction = Glibc.accept
    #elseif canImport(Musl)
    private static let bindFunction = Musl.bind
    private static let listenFunction = Musl.listen
    private static let acceptFunction = Musl.accept
    #else
    private static let bindFunction = Darwin.bind
    private static let listenFunction = Darwin.listen
    private static let acceptFunction = Darwin.accept
    #endif
}

/// Outgoing connections, for the HTTP client.
enum ClientSockets {
    enum ConnectResult {
        /// Connected at once (loopback often is) or in progress: watch for writability, then
        /// ask `connectionError`.
        case started(fd: Int32, inProgress: Bool)
        case failed(errno: Int32)
    }

    /// A non-blocking TCP connect to a numeric address.
    static func connect(to address: SocketAddress) -> ConnectResult {
        let fd = socket(address.family, LibC.sockStream, 0)
        guard fd >= 0 else { return .failed(errno: errno) }
        guard Posix.setNonBlockingAndCloseOnExec(fd) else {
            let e = errno
            Posix.close(fd)
            return .failed(errno: e)
        }
        Posix.setOption(fd, LibC.ipprotoTCP, TCP_NODELAY, 1)
        #if canImport(Darwin)
        Posix.setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
        #endif
        var addr = address
        while true {
            let rc = withUnsafePointer(to: &addr.storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connectFunction(fd, $0, addr.length) }
            }
            if rc == 0 { return .started(fd: fd, inProgress: false) }
            let e = errno
            if e == EINTR { continue }
            if e == EINPROGRESS { return .started(fd: fd, inProgress: true) }
            Posix.close(fd)
            return .failed(errno: e)
        }
    }

    /// After a connect in progress became writable: 0 when it succeeded, else its errno.
    static func connectionError(_ fd: Int32) -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return errno }
        return error
    }

    /// Addresses of a host name, for connecting (blocking: call it off the event loops).
    static func resolve(host: String, port: Int) -> Result<[SocketAddress], SocketError> {
        SocketAddress.lookup(host: host, port: port, flags: AI_NUMERICSERV).flatMap { addresses in
            addresses.isEmpty ? .failure(.cannotResolve(host: host, reason: "no address")) : .success(addresses)
        }
    }

    /// A numeric address (`127.0.0.1`, `::1`) without a lookup, so loopback upstreams never
    /// wait for a resolver.
    static func numeric(host: String, port: Int) -> SocketAddress? {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return try? SocketAddress.lookup(host: bare, port: port, flags: AI_NUMERICHOST | AI_NUMERICSERV).get().first
    }

    #if canImport(Glibc)
    private static let connectFunction = Glibc.connect
    #elseif canImport(Musl)
    private static let connectFunction = Musl.connect
    #else
    private static let connectFunction = Darwin.connect
    #endif
}
