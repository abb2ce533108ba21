// The HTTP layer alone, for scripts/benchmark and the server-core tests:
//   benchserver [PORT] [--selector epoll|kqueue|poll] [--max-connections N]
// Routes: anything answers a fixed 44-byte JSON body at once; /deferred answers the same from
// another thread (a pending answer); /stream?bytes=N streams N bytes of a pattern (byte i is
// i % 251) with back-pressure, as a producer that respects `write`'s answer must.
import Dispatch
import Foundation
import HTTP1
import HTTPServer
import SystemSupport

var configuration = ServerConfiguration()
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--selector": configuration.selector = arguments.popFirst().flatMap(SelectorKind.init(rawValue:)) ?? .platformDefault
    case "--max-connections": configuration.maxConnections = arguments.popFirst().flatMap { Int($0) } ?? 4096
    default: configuration.port = Int(argument) ?? 0
    }
}
var headers = HeaderFields()
headers.add("Content-Type", "application/json")
let response = OutgoingResponse(PreparedResponse(status: 200, headers: headers,
                                                 body: Array(#"{"id":42,"name":"swift-senpai","plan":"pro"}"#.utf8)))
let completions = DispatchQueue(label: "benchserver.completions")

/// The deferred route's responder: a thread that completes pending answers in batches, the way
/// a proxy's upstream loop would, so the benchmark measures the server's seam (the promise, the
/// mailbox, the wake-up), not one dispatch per request.
final class Completer: Sendable {
    private let queue = Locked<[PendingResponse]>([])
    private let signal = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in
            while true {
                signal.wait()
                let batch = queue.withLock { q -> [PendingResponse] in defer { q.removeAll(keepingCapacity: true) }; return q }
                for pending in batch { pending.complete(response) }
            }
        }
        thread.name = "benchserver.completer"
        thread.start()
    }

    func add(_ pending: PendingResponse) {
        let first = queue.withLock { q -> Bool in q.append(pending); return q.count == 1 }
        if first { signal.signal() }
    }
}
let completer = Completer()

/// Writes `total` pattern bytes in 64 KiB pieces, waiting for room whenever `write` says so.
final class PatternProducer: Sendable {
    let stream: BodyStream
    let total: Int
    private let written = Locked(0)
    /// 64 KiB of the pattern from any starting phase: byte i is i % 251.
    static let pattern: [UInt8] = (0..<(64 * 1024 + 251)).map { UInt8($0 % 251) }

    init(stream: BodyStream, total: Int) {
        self.stream = stream
        self.total = total
    }

    func start() {
        stream.onWritable { [self] in completions.async { self.produce() } }
    }

    private func produce() {
        while !stream.isCancelled {
            let offset = written.value
            guard offset < total else { stream.finish(); return }
            let count = min(64 * 1024, total - offset)
            let start = offset % 251
            let piece = Array(Self.pattern[start..<(start + count)])
            written.value = offset + count
            if !stream.write(piece) { return } // wait for onWritable
        }
    }
}

let server = HTTP1Server(configuration: configuration) { request in
    switch request.path {
    case "/deferred":
        let pending = PendingResponse()
        completer.add(pending)
        return .later(pending)
    case "/stream":
        let total = request.queryItems.first { $0.name == "bytes" }.flatMap { Int($0.value) } ?? 1 << 20
        let stream = BodyStream(length: total)
        PatternProducer(stream: stream, total: total).start()
        var streamHeaders = HeaderFields()
        streamHeaders.add("Content-Type", "application/octet-stream")
        return .now(OutgoingResponse(PreparedResponse(status: 200, headers: streamHeaders, streamLength: total), delivery: .stream(stream)))
    default:
        return .now(response)
    }
}
do {
    try server.start()
} catch {
    print("benchserver: \(error)")
    exit(1)
}
print("benchserver listening on \(server.baseURL)")
fflush(nil) // the ready line must reach a pipe at once (scripts/benchmark waits for it)
server.waitUntilStopped()
