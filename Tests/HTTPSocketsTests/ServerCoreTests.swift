import Dispatch
import Foundation
import HTTP1
@testable import HTTPSockets
import SystemSupport
import TestSupport
import Testing

/// Answers that arrive later, streamed bodies, and the timeouts of every state (issue 12), on
/// the wire, with every selector of the platform.
@Suite struct ServerCoreTests {
    /// What the test handler saw: pending answers cancelled, streams' back-pressure.
    final class Observed: Sendable {
        let cancelled = Locked(0)
        let handled = Locked<[String]>([])
        let maxUnsent = Locked(0)
    }

    static func handler(_ observed: Observed) -> Handler {
        { request in
            observed.handled.withLock { $0.append(request.path) }
            let parts = request.path.split(separator: "/")
            switch parts.first {
            case "later":
                // Completed from another thread after N milliseconds.
                let pending = PendingResponse()
                let delay = Int(parts.last ?? "0") ?? 0
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) {
                    pending.complete(.text(200, "later \(delay)"))
                }
                return .later(pending)
            case "forever":
                let pending = PendingResponse()
                pending.onCancel { observed.cancelled.withLock { $0 += 1 } }
                return .later(pending)
            case "events":
                let stream = BodyStream(isLongLived: true)
                stream.onCancel { observed.cancelled.withLock { $0 += 1 } }
                let timer = DispatchSource.makeTimerSource(queue: .global())
                timer.schedule(deadline: .now(), repeating: .milliseconds(100))
                let ticks = Locked(0)
                timer.setEventHandler {
                    let n = ticks.withLock {
                        $0 += 1
                        return $0
                    }
                    if !stream.write(Array("data: tick \(n)\n\n".utf8)) && stream.isCancelled { timer.cancel() }
                }
                timer.resume()
                var headers = HeaderFields()
                headers.add("Content-Type", "text/event-stream")
                return .now(
                    OutgoingResponse(
                        PreparedResponse(status: 200, headers: headers, streamLength: nil),
                        delivery: .stream(stream)
                    )
                )
            case "chunks":
                let stream = BodyStream()
                DispatchQueue.global().async {
                    for word in ["alpha", "beta", "", "gamma"] { stream.write(Array(word.utf8)) }
                    stream.finish()
                }
                return .now(
                    OutgoingResponse(
                        PreparedResponse(status: 200, headers: HeaderFields(), streamLength: nil),
                        delivery: .stream(stream)
                    )
                )
            case "big":
                return .now(OutgoingResponse(status: 200, body: [UInt8](repeating: 0x61, count: 8 << 20)))
            case "reset":
                var response = OutgoingResponse.text(200, "never")
                response.delivery = .reset
                return .now(response)
            default:
                return .now(.text(200, "now \(request.path)"))
            }
        }
    }

    @Test func aPendingAnswerInTheMiddleOfAPipelineKeepsTheOrder() async throws {
        let observed = Observed()
        try await withServer(reply: Self.handler(observed)) { server in
            let c = try WireConnection(port: server.port)
            c.send(
                """
                GET /later/300 HTTP/1.1\r\nHost: h\r\n\r\nGET /fast HTTP/1.1\r\nHost: h\r\n\r\nGET /later/20 \
                HTTP/1.1\r\nHost: h\r\n\r\n
                """
            )
            #expect(try c.readResponse().text == "later 300")
            #expect(try c.readResponse().text == "now /fast")
            #expect(try c.readResponse().text == "later 20")
            // Others are not held up meanwhile.
            let other = try WireConnection(port: server.port)
            other.send("GET /later/500 HTTP/1.1\r\nHost: h\r\n\r\n")
            let quick = try WireConnection(port: server.port)
            quick.send("GET /quick HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try quick.readResponse().text == "now /quick")
            #expect(other.staysSilent(milliseconds: 50))
            #expect(try other.readResponse().text == "later 500")
        }
    }

    /// A handler that queues its requests for a worker of its own and wakes it only when a pass
    /// ends (`afterPass`, as benchserver's deferred route does) still answers every request,
    /// pipelined ones too: a request parsed after a pending answer was delivered (in the loop's
    /// look at its mailbox) is handed over by the same pass's end.
    @Test func aWorkerWokenOncePerPassAnswersEveryRequest() async throws {
        let queued = Locked<[(PendingResponse, String)]>([])
        let wakeUps = Locked(0)
        let wakeWorker: @Sendable () -> Void = {
            let batch = queued.withLock { q in
                defer { q.removeAll() }
                return q
            }
            guard !batch.isEmpty else { return }
            wakeUps.withLock { $0 += 1 }
            DispatchQueue.global().async {
                for (pending, path) in batch { pending.complete(.text(200, "done \(path)")) }
            }
        }
        try await withServer(
            { $0.afterPass = wakeWorker },
            reply: { request in
                let pending = PendingResponse()
                queued.withLock { $0.append((pending, request.path)) }
                return .later(pending)
            }
        ) { server in
            let before = wakeUps.value
            let c = try WireConnection(port: server.port)
            c.send(
                "GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\nGET /3 HTTP/1.1\r\nHost: h\r\n\r\n"
            )
            #expect(try c.readResponse().text == "done /1")
            #expect(try c.readResponse().text == "done /2")
            #expect(try c.readResponse().text == "done /3")
            #expect(wakeUps.value - before == 3, "one wake-up per pass that queued a request")
        }
    }

    @Test func aClientThatLeavesWhileItsAnswerIsPendingCancelsIt() async throws {
        let observed = Observed()
        try await withServer(reply: Self.handler(observed)) { server in
            let before = observed.cancelled.value
            let c = try WireConnection(port: server.port)
            c.send("GET /forever HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(await eventually { observed.handled.value.contains("/forever") })
            c.close()
            #expect(await eventually { observed.cancelled.value == before + 1 }, "the responder saw the cancellation")
            #expect(await eventually { server.connectionCount == 0 })
        }
    }

    @Test func stopReleasesPendingAnswersWithinTheGracePeriod() async throws {
        let observed = Observed()
        var configuration = ServerConfiguration()
        configuration.shutdownGraceMilliseconds = 300
        let server = HTTP1Server(configuration: configuration, handler: Self.handler(observed))
        try server.start()
        let c = try WireConnection(port: server.port)
        c.send("GET /forever HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(await eventually { observed.handled.value.contains("/forever") })
        // Timed around the server's own stop: timing `await server.stop()` also counted the wait
        // for a free thread of the test pool to resume on, 4.5 s once in a loaded parallel run.
        let started = WireConnection.now()
        server.stopAndWait()
        #expect(WireConnection.now() - started < 3_000, "stop waited for the grace period, not for the answer")
        #expect(observed.cancelled.value == 1)
        #expect(c.waitForClose(timeoutMilliseconds: 1_000))
    }

    @Test func aLongLivedStreamOutlivesTheIdleTimeoutAndEndsOnStop() async throws {
        let observed = Observed()
        var configuration = ServerConfiguration()
        configuration.idleTimeoutMilliseconds = 300
        configuration.shutdownGraceMilliseconds = 2_000
        for selector in SelectorKind.available {
            configuration.selector = selector
            let server = HTTP1Server(configuration: configuration, handler: Self.handler(observed))
            try server.start()
            let c = try WireConnection(port: server.port)
            c.send("GET /events HTTP/1.1\r\nHost: h\r\n\r\n")
            var received = ""
            let started = WireConnection.now()
            // Events come every 100 ms: the eighth comes well after two idle timeouts.
            while !received.contains("data: tick 8\n"), WireConnection.now() < started + 10_000 {
                received += String(decoding: c.readSome(max: 4096, timeoutMilliseconds: 200), as: UTF8.self)
            }
            #expect(WireConnection.now() - started >= 600, "\(selector)")
            #expect(received.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(selector)")
            #expect(received.contains("Transfer-Encoding: chunked"), "\(selector)")
            #expect(
                received.contains("data: tick 8"),
                "\(selector): still streaming after the idle timeout: \(received.suffix(80))"
            )
            #expect(server.streamCount == 1, "\(selector)")
            await server.stop()
            let (rest, closed) = c.readUntilClose(timeoutMilliseconds: 2_000)
            #expect(closed, "\(selector)")
            #expect(
                String(decoding: rest, as: UTF8.self).hasSuffix("0\r\n\r\n"),
                "\(selector): the stream was ended, not cut"
            )
            #expect(server.streamCount == 0, "\(selector)")
        }
    }

    @Test func unknownLengthsAreChunkedFor11AndUntilCloseFor10() async throws {
        let observed = Observed()
        try await withServer(reply: Self.handler(observed)) { server in
            let c = try WireConnection(port: server.port)
            c.send("GET /chunks HTTP/1.1\r\nHost: h\r\n\r\n")
            let text = String(decoding: c.readUntil(suffix: "0\r\n\r\n"), as: UTF8.self)
            #expect(text.contains("Transfer-Encoding: chunked\r\n"))
            #expect(text.hasSuffix("\r\n\r\n5\r\nalpha\r\n4\r\nbeta\r\n5\r\ngamma\r\n0\r\n\r\n"), "\(text)")
            let old = try WireConnection(port: server.port)
            old.send("GET /chunks HTTP/1.0\r\n\r\n")
            let (oldBytes, closed) = old.readUntilClose()
            let oldText = String(decoding: oldBytes, as: UTF8.self)
            #expect(closed)
            #expect(!oldText.contains("Transfer-Encoding"))
            #expect(oldText.contains("Connection: close\r\n"))
            #expect(oldText.hasSuffix("\r\n\r\nalphabetagamma"), "\(oldText)")
        }
    }

    @Test func aClientThatNeverReadsIsClosedByTheWriteStallTimeout() async throws {
        let observed = Observed()
        try await withServer({ $0.writeTimeoutMilliseconds = 400 }, reply: Self.handler(observed)) { server in
            let c = try WireConnection(port: server.port, receiveBuffer: 4096)
            c.send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n")
            // The client reads nothing for well over the timeout (this is the scenario, not a
            // wait for readiness). 8 MiB cannot fit in the socket buffers: the server stalls.
            try await Task.sleep(for: .milliseconds(1500))
            let (bytes, closed) = c.readUntilClose(timeoutMilliseconds: 3_000)
            #expect(closed, "the server gave up on the client")
            #expect(bytes.count < 8 << 20, "it did not wait for the client to take all \(bytes.count) bytes")
            withExtendedLifetime(c) {}
        }
    }

    @Test func aFaultAfterTwoPipelinedRequestsDeliversBothAnswersFirst() async throws {
        let observed = Observed()
        try await withServer(reply: Self.handler(observed)) { server in
            let c = try WireConnection(port: server.port)
            c.send(
                """
                GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /later/100 HTTP/1.1\r\nHost: h\r\n\r\nGET /reset \
                HTTP/1.1\r\nHost: h\r\n\r\n
                """
            )
            #expect(try c.readResponse().text == "now /a")
            #expect(try c.readResponse().text == "later 100")
            let (rest, closed) = c.readUntilClose()
            #expect(rest.isEmpty && closed, "then the reset, and nothing of its body")
        }
    }
}
