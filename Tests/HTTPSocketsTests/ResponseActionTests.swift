import TestSupport
import Foundation
import Testing
import HTTP1
@testable import HTTPSockets
import SystemSupport

/// The delivery actions the stub engine builds on, each checked on the wire.
@Suite struct ResponseActionTests {
    static let actionHandler: Respond = { request in
        var response = OutgoingResponse.text(200, "body-of-\(request.path)")
        switch request.path {
        case "/delay": response.delayMilliseconds = 300
        case "/reset": response.delivery = .reset
        case "/empty": response.delivery = .closeWithoutResponse
        case "/garbage": response.delivery = .rawThenClose([0xde, 0xad, 0xbe, 0xef])
        case "/hang": response.delivery = .hang
        case "/dribble":
            response = OutgoingResponse(status: 200, body: Array("0123456789".utf8))
            response.delivery = .dribble(chunks: 5, durationMilliseconds: 500)
        default: break
        }
        return response
    }

    @Test func delayDoesNotBlockOtherClients() async throws {
        try await withServer({ $0.loopCount = 1 }, handler: Self.actionHandler) { server in
            let slow = try WireConnection(port: server.port)
            slow.send("GET /delay HTTP/1.1\r\nHost: h\r\n\r\n")
            // On the same single loop, a fast request is answered while the slow one waits.
            let fast = try WireConnection(port: server.port)
            fast.send("GET /fast HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try fast.readResponse().text == "body-of-/fast")
            #expect(slow.staysSilent(milliseconds: 50))
            #expect(try slow.readResponse().text == "body-of-/delay")
        }
    }

    @Test func manyDelayedRequestsNeedNoThreads() async throws {
        try await withServer({ $0.loopCount = 1 }, handler: Self.actionHandler) { server in
            let clients = try (0..<200).map { _ in try WireConnection(port: server.port) }
            for c in clients { c.send("GET /delay HTTP/1.1\r\nHost: h\r\n\r\n") }
            for c in clients { #expect(try c.readResponse().text == "body-of-/delay") }
        }
    }

    @Test func pipelinedRequestBehindADelayKeepsItsOrder() async throws {
        try await withServer(handler: Self.actionHandler) { server in
            let c = try WireConnection(port: server.port)
            c.send("GET /delay HTTP/1.1\r\nHost: h\r\n\r\nGET /after HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try c.readResponse().text == "body-of-/delay")
            #expect(try c.readResponse().text == "body-of-/after")
        }
    }

    @Test func resetSendsRST() async throws {
        try await withServer(handler: Self.actionHandler) { server in
            let c = try WireConnection(port: server.port)
            c.send("GET /reset HTTP/1.1\r\nHost: h\r\n\r\n")
            let result = c.readUntilClose()
            #expect(result.closed && result.bytes.isEmpty)
            #expect(c.sawReset)
        }
    }

    @Test func closeWithoutResponseSendsNothing() async throws {
        try await withServer(handler: Self.actionHandler) { server in
            let c = try WireConnection(port: server.port)
            c.send("GET /empty HTTP/1.1\r\nHost: h\r\n\r\n")
            let result = c.readUntilClose()
            #expect(result.closed && result.bytes.isEmpty)
            #expect(!c.sawReset)
        }
    }

    @Test func rawBytesThenClose() async throws {
        try await withServer(handler: Self.actionHandler) { server in
            let c = try WireConnection(port: server.port)
            c.send("GET /garbage HTTP/1.1\r\nHost: h\r\n\r\n")
            let result = c.readUntilClose()
            #expect(result.closed)
            #expect(result.bytes == [0xde, 0xad, 0xbe, 0xef])
        }
    }

    /// Each step waits for what it needs (the server has the request, the connection is gone),
    /// never a silence long enough for the server to have read it: under load a loop can take
    /// longer than any such silence, and the stop then met a connection with no request yet.
    @Test func hangHoldsUntilTheClientLeavesAndStopReleasesIt() async throws {
        var configuration = ServerConfiguration()
        configuration.shutdownGraceMilliseconds = 10_000
        let hangs = Locked(0)
        let server = HTTP1Server(
            configuration: configuration,
            respond: { request in
                if request.path == "/hang" { hangs.withLock { $0 += 1 } }
                return Self.actionHandler(request)
            }
        )
        try server.start()
        let leaving = try WireConnection(port: server.port)
        leaving.send("GET /hang HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(await eventually { hangs.value == 1 })
        #expect(leaving.staysSilent(milliseconds: 200))
        leaving.reset()
        #expect(await eventually { server.connectionCount == 0 })

        let held = try WireConnection(port: server.port)
        held.send("GET /hang HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(await eventually { hangs.value == 2 })
        #expect(held.staysSilent(milliseconds: 100))
        let started = WireConnection.now()
        await server.stop()
        // Released at once, not after the 10 s grace period.
        #expect(WireConnection.now() - started < 5_000)
        #expect(held.waitForClose())
    }

    @Test func dribbleSendsTheBodyInTimedPieces() async throws {
        try await withServer(handler: Self.actionHandler) { server in
            let c = try WireConnection(port: server.port)
            let started = WireConnection.now()
            c.send("GET /dribble HTTP/1.1\r\nHost: h\r\n\r\nGET /after HTTP/1.1\r\nHost: h\r\n\r\n")
            let r = try c.readResponse()
            #expect(r.text == "0123456789")
            #expect(WireConnection.now() - started >= 400)  // five pieces, 100 ms apart
            #expect(try c.readResponse().text == "body-of-/after")
        }
    }

    @Test func gracefulStopFinishesInFlightResponses() async throws {
        // The handler itself starts the stop, so the stop begins while the response is in
        // flight however the test's own tasks are scheduled (parallel tests can hold the
        // cooperative pool for seconds under the thread sanitizer). The answer is one being
        // prepared (as a proxy's is), which a graceful stop waits for; a delay it does not.
        let serverBox = Locked<HTTP1Server?>(nil)
        let server = HTTP1Server(configuration: ServerConfiguration()) { request in
            let pending = PendingResponse()
            let path = request.path
            DispatchQueue.global().asyncAfter(deadline: .now() + 1.5) {
                pending.complete(OutgoingResponse.text(200, "body-of-\(path)"))
            }
            serverBox.withLock { $0 }?.stopInBackground()
            return .later(pending)
        }
        serverBox.withLock { $0 = server }
        try server.start()
        let idle = try WireConnection(port: server.port)
        let c = try WireConnection(port: server.port)
        c.send("GET /prepared HTTP/1.1\r\nHost: h\r\n\r\n")
        let r = try c.readResponse(timeoutMilliseconds: 10_000)
        #expect(r.text == "body-of-/prepared")
        #expect(r.header("Connection") == "close")
        #expect(idle.waitForClose())
        await server.stop()
    }

    /// Issue 36: a delay or a dribble imitates a slow network; a stop cuts it at once (it
    /// waited out the grace period) and its report says abandoned.
    @Test func stopAbandonsDelaysAndDribblesAtOnce() async throws {
        let reports = Locked<[String: DeliveryReport.Outcome]>([:])
        let handled = Locked(0)
        var configuration = ServerConfiguration()
        configuration.shutdownGraceMilliseconds = 10_000
        let server = HTTP1Server(configuration: configuration, respond: Self.reporting(reports, handled))
        try server.start()
        let delayed = try WireConnection(port: server.port)
        delayed.send("GET /delay HTTP/1.1\r\nHost: h\r\n\r\n")
        let dribbled = try WireConnection(port: server.port)
        dribbled.send("GET /dribble HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(await eventually { handled.value == 2 })
        let started = WireConnection.now()
        server.stopAndWait()
        #expect(
            WireConnection.now() - started < 5_000,
            "stop waited for a delay or a dribble (the grace period is 10 s)"
        )
        #expect(reports.value == ["/delay": .abandoned, "/dribble": .abandoned])
        #expect(delayed.waitForClose())
        #expect(dribbled.waitForClose())
    }

    /// A client that closes its connection while its answer is delayed has left: the answer
    /// is abandoned then, not sent to nobody at the end of the delay.
    @Test func aClientThatLeavesDuringADelayAbandonsIt() async throws {
        let reports = Locked<[String: DeliveryReport.Outcome]>([:])
        let handled = Locked(0)
        try await withServer(handler: Self.reporting(reports, handled)) { server in
            // The body runs once per selector: each run starts from nothing.
            reports.withLock { $0 = [:] }
            handled.withLock { $0 = 0 }
            let leaving = try WireConnection(port: server.port)
            leaving.send("GET /delay HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(await eventually { handled.value == 1 })
            leaving.close()
            #expect(await eventually { reports.value["/delay"] == .abandoned })
            #expect(await eventually { server.connectionCount == 0 })
            let staying = try WireConnection(port: server.port)
            staying.send("GET /short HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try staying.readResponse().text == "body-of-/short")
            #expect(await eventually { reports.value["/short"] == .delivered })
        }
    }

    /// Answers that report their delivery: /delay waits 60 s, /dribble spreads its body over
    /// 60 s (far past any stall of a loaded machine), /short waits 50 ms.
    static func reporting(_ reports: Locked<[String: DeliveryReport.Outcome]>, _ handled: Locked<Int>) -> Respond {
        { request in
            let path = request.path
            var response = OutgoingResponse.text(200, "body-of-\(path)")
            switch path {
            case "/delay": response.delayMilliseconds = 60_000
            case "/dribble": response.delivery = .dribble(chunks: 4, durationMilliseconds: 60_000)
            default: response.delayMilliseconds = 50
            }
            response.deliveryReport = DeliveryReport { outcome in reports.withLock { $0[path] = outcome } }
            handled.withLock { $0 += 1 }
            return response
        }
    }
}

@Suite struct ResourceTests {
    @Test func idleAndHalfSentConnectionsDoNotDelayANewClient() async throws {
        try await withServer { server in
            var held: [WireConnection] = []
            for i in 0..<300 {
                let c = try WireConnection(port: server.port)
                if i % 2 == 0 { c.send("GET /half HTTP/1.1\r\nHost: h\r\nX-Partial: ") }
                held.append(c)
            }
            let fresh = try WireConnection(port: server.port)
            fresh.send("GET /fresh HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try fresh.readResponse(timeoutMilliseconds: 3_000).text == "GET /fresh 0")
            withExtendedLifetime(held) {}
        }
    }

    @Test func aFullServerClosesItsLongestIdleConnectionForANewClient() async throws {
        // One loop: each loop closes its own longest-idle connection, so with several loops the
        // one closed is the longest idle of the loop that took the new client.
        try await withServer({
            $0.maxConnections = 2
            $0.loopCount = 1
        }) { server in
            let a = try WireConnection(port: server.port)
            a.send("GET /a HTTP/1.1\r\nHost: h\r\n\r\n")
            _ = try a.readResponse()
            let b = try WireConnection(port: server.port)
            b.send("GET /b HTTP/1.1\r\nHost: h\r\n\r\n")
            _ = try b.readResponse()
            // Both idle between requests: the new client gets a's slot at once.
            let c = try WireConnection(port: server.port)
            c.send("GET /third HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try c.readResponse().text == "GET /third 0")
            #expect(a.waitForClose(timeoutMilliseconds: 2_000), "the longest-idle connection made room")
            b.send("GET /b2 HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try b.readResponse().text == "GET /b2 0")
        }
    }

    @Test func connectionCapKeepsANewClientWaitingWhileEveryConnectionIsBusy() async throws {
        try await withServer({ $0.maxConnections = 2 }) { server in
            let a = try WireConnection(port: server.port)
            let b = try WireConnection(port: server.port)
            // Both in the middle of a request: nothing to close. (A connection the server has
            // not read a byte from yet counts as idle and may be closed for a newcomer; under a
            // loaded machine a loop can take a while to read, so give both time. Seen in a full
            // parallel run: c was served because b's bytes were not read yet.)
            a.send("GET / HTTP/1.1\r\nHost")
            b.send("GET / HTTP/1.1\r\nHost")
            #expect(a.staysSilent(milliseconds: 200))
            #expect(b.staysSilent(milliseconds: 200))
            let c = try WireConnection(port: server.port)  // sits in the backlog
            c.send("GET /third HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(c.staysSilent(milliseconds: 300))
            a.reset()
            #expect(try c.readResponse().text == "GET /third 0")
            withExtendedLifetime(b) {}
        }
    }

    @Test func noDescriptorLeakAfterThousandsOfAbandonedConnections() async throws {
        let before = openDescriptorCount()
        try await withServer({ $0.headerTimeoutMilliseconds = 300 }) { server in
            for i in 0..<3_000 {
                let c = try WireConnection(port: server.port)
                switch i % 4 {
                case 0: break  // connect and leave
                case 1: c.send("GET /half HTTP/1.1\r\nHo")  // mid-head
                case 2: c.send("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\nab")  // mid-body
                default:
                    c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
                    c.reset()  // reset after asking
                }
            }
            #expect(await eventually(timeoutMilliseconds: 20_000) { server.connectionCount == 0 })
        }
        // Other tests run in parallel in this process (the conformance replay holds 16
        // connections at a time, others spawn processes and pipes): give their descriptors time
        // to go, and allow a few dozen that are theirs. A leak of even 1 in 40 of these 3,000
        // connections would stay above that. (Seen failing with no slack in a full run.)
        #expect(await eventually(timeoutMilliseconds: 15_000) { openDescriptorCount() <= before + 64 })
    }
}

@Suite struct LifecycleTests {
    // Review finding (issue 10): a second start() leaked the first call's listeners and loops.
    @Test func startingTwiceIsHarmless() async throws {
        try await withServer { server in
            let port = server.port
            // What a second start() leaked was a set of loops (each with its wake-up pipe) and
            // listeners. Counting this process's descriptors could not show it reliably: tests
            // running in parallel open and close thousands of them meanwhile (it failed so in a
            // full run). The loops are the same objects, and the port has as many listening
            // sockets as before (Linux: /proc/net/tcp*), which no other test can change.
            let loops = server.eventLoops.map(ObjectIdentifier.init)
            let listeners = listeningSockets(port: port)
            for _ in 0..<3 { try server.start() }
            #expect(server.port == port)
            #expect(server.eventLoops.map(ObjectIdentifier.init) == loops, "no new event loops")
            #expect(listeningSockets(port: port) == listeners, "no new listener")
            let c = try WireConnection(port: port)
            c.send("GET /x HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try c.readResponse().text == "GET /x 0")
        }
    }

    /// Sockets listening on `port` (state 0A in /proc/net/tcp and tcp6); nil where there is no
    /// /proc (macOS), which leaves the check to the loops.
    private func listeningSockets(port: Int) -> Int? {
        #if os(Linux)
        let hexPort = String(format: ":%04X", port)
        var count = 0
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let columns = line.split(separator: " ")
                if columns.count > 3, columns[1].hasSuffix(hexPort), columns[3] == "0A" { count += 1 }
            }
        }
        return count
        #else
        return nil
        #endif
    }
}
