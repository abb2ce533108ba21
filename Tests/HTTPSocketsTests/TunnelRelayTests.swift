import Foundation
import HTTP1
@testable import HTTPSockets
import SystemSupport
import TestSupport
import Testing

/// Blind `CONNECT` tunnels over real sockets, in-process, with every selector: every byte both
/// ways, back-pressure toward a slow reader, half-closes each way, an upstream that resets in the
/// middle, the idle timeout, and what the tunnel's record says of each ending.
@Suite struct TunnelRelayTests {
    /// The tunnels a server opened, newest last.
    final class Opened: Sendable {
        let tunnels = Locked<[ConnectionTunnel]>([])

        /// Answers `CONNECT host:port` with a blind relay there, anything else with the echo.
        var handler: Respond {
            { [self] request in
                guard request.method == "CONNECT", let authority = request.authority,
                    let (host, port) = ConnectionTunnel.split(authority: authority)
                else { return echoHandler(request) }
                let tunnel = ConnectionTunnel(host: host, port: port, authority: authority, mode: .relay)
                tunnels.withLock { $0.append(tunnel) }
                var response = OutgoingResponse(status: 200, headers: HeaderFields(), body: [])
                response.delivery = .tunnel(tunnel)
                return response
            }
        }

        /// The newest tunnel's record once it has ended (nil if it does not within the deadline).
        func ended() async -> ConnectionTunnel.Progress? {
            let closed = await eventually(timeoutMilliseconds: 10_000) {
                tunnels.withLock { $0.last?.progress.state == .closed }
            }
            return closed ? tunnels.withLock { $0.last?.progress } : nil
        }
    }

    static func acceptingConnect(_ configuration: inout ServerConfiguration) {
        configuration.limits.acceptsConnect = true
    }

    /// `withServer` (every selector) with tunnels spliced (Linux) and copied (as elsewhere).
    func withRelay(
        _ opened: Opened,
        _ configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: (HTTP1Server) async throws -> Void
    ) async throws {
        for splices in [true, false] {
            let setUp: (inout ServerConfiguration) -> Void = {
                Self.acceptingConnect(&$0)
                $0.splicesTunnels = splices
                configure(&$0)
            }
            try await withServer(setUp, handler: opened.handler, body)
        }
    }

    /// A tunnel through `server` to `upstream`: the client's end and the upstream's.
    func open(
        _ server: HTTP1Server,
        to upstream: LoopbackListener,
        receiveBuffer: Int32? = nil
    ) throws -> (
        client: WireConnection, far: WireConnection
    ) {
        let client = try WireConnection(port: server.port, receiveBuffer: receiveBuffer)
        client.send("CONNECT 127.0.0.1:\(upstream.port) HTTP/1.1\r\nHost: 127.0.0.1:\(upstream.port)\r\n\r\n")
        let far = try upstream.accept()
        let head = String(decoding: client.readUntil(suffix: "\r\n\r\n"), as: UTF8.self)
        #expect(head == "HTTP/1.1 200 Connection Established\r\n\r\n")
        return (client, far)
    }

    @Test func everyByteGoesThroughBothWaysAtOnceAndBothEndsCloseIt() async throws {
        let upstream = try LoopbackListener()
        let opened = Opened()
        let toUpstream = patternBytes(6 << 20, seed: 1)
        let toClient = patternBytes(6 << 20, seed: 2)
        try await withRelay(opened) { server in
            let (client, far) = try open(server, to: upstream)
            let up = BackgroundSend(toUpstream, on: client, thenShutDown: true)
            let down = BackgroundSend(toClient, on: far, thenShutDown: true)
            let atClient = client.readBytes(count: toClient.count)
            let atUpstream = far.readBytes(count: toUpstream.count)
            #expect(up.wait() && down.wait())
            let sameDown = atClient == toClient
            let sameUp = atUpstream == toUpstream
            #expect(sameDown, "the client got \(atClient.count) bytes of \(toClient.count), not all as sent")
            #expect(sameUp, "the upstream got \(atUpstream.count) bytes of \(toUpstream.count), not all as sent")
            // Each side's end of input arrives after its last byte.
            #expect(client.readUntilClose().closed)
            #expect(far.readUntilClose().closed)
            let progress = try #require(await opened.ended())
            #expect(progress.error == nil, "both sides closed: no reason to give")
            #expect(progress.bytesFromClient == toUpstream.count)
            #expect(progress.bytesToClient == toClient.count)
            #expect(progress.milliseconds != nil)
        }
    }

    @Test func aSlowReaderHoldsTheUpstreamBackInsteadOfTheServerBufferingIt() async throws {
        let upstream = try LoopbackListener()
        let opened = Opened()
        // Far more than the kernel buffers along the way (a loopback socket's receive buffer
        // grows to tcp_rmem's maximum, 32 MB here): numbered 1 MiB blocks, cheap to check.
        let blocks = 128
        let block = patternBytes(1 << 20, seed: 3)
        var toClient: [UInt8] = []
        toClient.reserveCapacity(blocks << 20)
        for index in 0..<blocks { toClient += Self.numbered(block, index) }
        try await withRelay(opened) { server in
            let (client, far) = try open(server, to: upstream, receiveBuffer: 16 * 1024)
            let down = BackgroundSend(toClient, on: far)
            // The client reads nothing: the upstream is stopped by full buffers along the way
            // (the kernel's, and at most one pipe or read in the relay), far short of the whole.
            var stalledAt = -1
            var unchangedSamples = 0
            let deadline = WireConnection.now() + 20_000
            while unchangedSamples < 5 && WireConnection.now() < deadline {
                WireConnection.staysSilentFor(milliseconds: 100)
                let sent = down.sent
                unchangedSamples = sent == stalledAt ? unchangedSamples + 1 : 0
                stalledAt = sent
            }
            #expect(unchangedSamples >= 5, "the upstream never stalled: \(stalledAt) bytes sent")
            #expect(stalledAt < toClient.count / 2, "\(stalledAt) of \(toClient.count) bytes left with nobody reading")
            // Then the client reads, and everything arrives intact and in order.
            var intact = 0
            while intact < blocks, client.readBytes(count: 1 << 20) == Self.numbered(block, intact) { intact += 1 }
            #expect(intact == blocks, "block \(intact) of \(blocks) did not arrive as sent")
            #expect(down.wait())
            client.close()
            far.close()
            let progress = try #require(await opened.ended())
            #expect(progress.bytesToClient == toClient.count)
        }
    }

    /// `block` with its first four bytes replaced by `index`: a block out of place shows.
    static func numbered(_ block: [UInt8], _ index: Int) -> [UInt8] {
        var copy = block
        for byte in 0..<4 { copy[byte] = UInt8(truncatingIfNeeded: index >> (8 * byte)) }
        return copy
    }

    @Test func theClientHalfClosesFirstAndTheUpstreamStillAnswers() async throws {
        let upstream = try LoopbackListener()
        let opened = Opened()
        try await withRelay(opened) { server in
            let (client, far) = try open(server, to: upstream)
            client.send("question")
            client.shutdownWrite()
            let (asked, upstreamSawEnd) = far.readUntilClose()
            #expect(String(decoding: asked, as: UTF8.self) == "question")
            #expect(upstreamSawEnd, "the client's half-close reaches the upstream")
            far.send("answer after the question ended")
            far.shutdownWrite()
            let (answer, clientSawEnd) = client.readUntilClose()
            #expect(String(decoding: answer, as: UTF8.self) == "answer after the question ended")
            #expect(clientSawEnd)
            let progress = try #require(await opened.ended())
            #expect(progress.error == nil)
            #expect(progress.bytesFromClient == 8)
            #expect(progress.bytesToClient == 31)
        }
    }

    @Test func theUpstreamHalfClosesFirstAndTheClientStillSends() async throws {
        let upstream = try LoopbackListener()
        let opened = Opened()
        try await withRelay(opened) { server in
            let (client, far) = try open(server, to: upstream)
            far.send("greeting")
            far.shutdownWrite()
            let (greeting, clientSawEnd) = client.readUntilClose()
            #expect(String(decoding: greeting, as: UTF8.self) == "greeting")
            #expect(clientSawEnd, "the upstream's half-close reaches the client")
            client.send("reply after the greeting ended")
            client.shutdownWrite()
            let (reply, upstreamSawEnd) = far.readUntilClose()
            #expect(String(decoding: reply, as: UTF8.self) == "reply after the greeting ended")
            #expect(upstreamSawEnd)
            let progress = try #require(await opened.ended())
            #expect(progress.error == nil)
            #expect(progress.bytesFromClient == 30)
            #expect(progress.bytesToClient == 8)
        }
    }

    @Test func anUpstreamResetMidTransferEndsTheTunnelAndSaysSo() async throws {
        let upstream = try LoopbackListener()
        let opened = Opened()
        let sent = patternBytes(1 << 20, seed: 4)
        try await withRelay(opened) { server in
            let (client, far) = try open(server, to: upstream)
            far.send(sent)
            far.reset()
            let (received, closed) = client.readUntilClose(timeoutMilliseconds: 10_000)
            #expect(closed)
            let prefix = received.count <= sent.count && received[...] == sent[0..<received.count]
            #expect(prefix, "what arrived before the reset is what was sent")
            #expect(client.sawReset, "the client is reset too: a cut-off stream must not look complete")
            let progress = try #require(await opened.ended())
            #expect(progress.state == .closed)
            #expect(progress.error == "the upstream reset the connection")
        }
    }

    /// The upstream sends its end after the client's, then bytes the client does not read: its
    /// socket is shut both ways (a hang-up, which epoll and poll report whatever they are asked
    /// to watch) while its bytes wait in the relay. The loop must not wake for it again and
    /// again (it did: every wait returned at once) but idle, then deliver every byte and the end.
    @Test func anUpstreamThatHungUpWhileItsBytesWaitLeavesTheLoopIdle() async throws {
        #if os(Linux)
        let upstream = try LoopbackListener()
        let opened = Opened()
        let passes = Locked(0)
        let counting: (inout ServerConfiguration) -> Void = { $0.afterPass = { passes.withLock { $0 += 1 } } }
        try await withRelay(opened, counting) { server in
            let (client, far) = try open(server, to: upstream, receiveBuffer: 16 * 1024)
            client.send("x")
            client.shutdownWrite()
            let (asked, upstreamSawEnd) = far.readUntilClose()
            #expect(asked == Array("x".utf8) && upstreamSawEnd)
            let total = 8 << 20
            let sending = BackgroundSend(patternBytes(total, seed: 4), on: far, thenShutDown: true)
            // The client reads a little at a time until the relay has taken the upstream's end.
            var received: [UInt8] = []
            let deadline = WireConnection.now() + 30_000
            while !far.endAcknowledged && WireConnection.now() < deadline {
                received += client.readSome(max: 4096)
            }
            #expect(far.endAcknowledged)
            #expect(received.count < total - (1 << 20), "bytes still wait in the relay")
            // The observation window, not a wait for readiness: an idle loop passes a few times
            // (its timers); one that spins, thousands of times.
            let before = passes.withLock { $0 }
            WireConnection.staysSilentFor(milliseconds: 500)
            let spent = passes.withLock { $0 } - before
            #expect(spent < 50, "the loops passed \(spent) times in 500 ms with nothing to do")
            received += client.readBytes(count: total - received.count)
            #expect(received == patternBytes(total, seed: 4), "every byte, in order")
            #expect(client.readUntilClose().closed)
            #expect(sending.wait())
            let record = await opened.ended()
            #expect(record?.error == nil, "both sides closed")
        }
        #endif
    }

    @Test func aTunnelWhereNothingMovesEndsAtTheIdleTimeout() async throws {
        let upstream = try LoopbackListener()
        let opened = Opened()
        try await withRelay(opened, { $0.idleTimeoutMilliseconds = 300 }) { server in
            let (client, far) = try open(server, to: upstream)
            client.send("ping")
            #expect(far.readBytes(count: 4, timeoutMilliseconds: 5_000) == Array("ping".utf8))
            #expect(client.waitForClose(timeoutMilliseconds: 5_000))
            #expect(far.waitForClose(timeoutMilliseconds: 5_000))
            let progress = try #require(await opened.ended())
            #expect(progress.error == "idle for 300 ms (the idle timeout)")
            #expect(progress.bytesFromClient == 4)
        }
    }
}
