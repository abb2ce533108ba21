// The HTTP layer alone, for scripts/benchmark and the server-core tests:
//   benchserver [PORT] [--selector epoll|kqueue|poll] [--max-connections N]
// Routes: anything answers a fixed 44-byte JSON body at once; /deferred answers the same from
// another thread (a pending answer); /stream?bytes=N streams N bytes of a pattern (byte i is
// i % 251) with back-pressure, as a producer that respects `write`'s answer must.
import Dispatch
import Foundation
import HTTP1
import HTTPSockets
import SystemSupport

var configuration = ServerConfiguration()
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--selector":
        configuration.selector = arguments.popFirst().flatMap(SelectorKind.init(rawValue:)) ?? .platformDefault
    case "--max-connections": configuration.maxConnections = arguments.popFirst().flatMap { Int($0) } ?? 4096
    default: configuration.port = Int(argument) ?? 0
    }
}
var headers = HeaderFields()
headers.add("Content-Type", "application/json")
let response = OutgoingResponse(
    PreparedResponse(
        status: 200,
        headers: headers,
        body: Array(#"{"id":42,"name":"swift-senpai","plan":"pro"}"#.utf8)
    )
)
let completions = DispatchQueue(label: "benchserver.completions")

/// The deferred route's responder: a thread that completes pending answers in batches, the way
/// a proxy's upstream loop would, so the benchmark measures the server's seam (the promise, the
/// mailbox, the wake-up), not one dispatch per request. A loop queues its requests during a pass
/// and wakes the thread once when the pass ends (`ServerConfiguration.afterPass`): woken on the
/// first request of each batch instead, the thread took them almost one by one, and its wake-ups
/// (0.7 `futex` calls a request) preempted the loops.
final class Completer: Sendable {
    private struct Queue {
        var pending: [PendingResponse] = []
        /// Signalled, and the batch not taken yet: the next pass need not signal again.
        var woken = false
    }
    private let queue = Locked(Queue())
    private let signal = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in
            // The thread and the queue trade arrays, as a loop and its mailbox do: the batch goes
            // back emptied, with its capacity. Emptying the queue's array while a copy of it was
            // being completed allocated a new one for every batch.
            var batch: [PendingResponse] = []
            while true {
                signal.wait()
                queue.withLock { q in
                    q.woken = false
                    swap(&batch, &q.pending)
                }
                for pending in batch { pending.complete(response) }
                batch.removeAll(keepingCapacity: true)
            }
        }
        thread.name = "benchserver.completer"
        thread.start()
    }

    /// On a loop, during its pass.
    func add(_ pending: PendingResponse) {
        queue.withLock { $0.pending.append(pending) }
    }

    /// On a loop, when its pass is done: one wake-up for whatever the passes queued.
    func passEnded() {
        let wake = queue.withLock { q -> Bool in
            guard !q.pending.isEmpty, !q.woken else { return false }
            q.woken = true
            return true
        }
        if wake { signal.signal() }
    }
}
let completer = Completer()
configuration.afterPass = { completer.passEnded() }

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
            guard offset < total else {
                stream.finish()
                return
            }
            let count = min(64 * 1024, total - offset)
            let start = offset % 251
            let piece = Array(Self.pattern[start..<(start + count)])
            written.value = offset + count
            if !stream.write(piece) { return }  // wait for onWritable
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
        return .now(
            OutgoingResponse(
                PreparedResponse(status: 200, headers: streamHeaders, streamLength: total),
                delivery: .stream(stream)
            )
        )
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
fflush(nil)  // the ready line must reach a pipe at once (scripts/benchmark waits for it)
server.waitUntilStopped()
