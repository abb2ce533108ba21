import SystemSupport
import Testing

@testable import HTTP1

/// Two upgraded connections spliced (the proxy's WebSocket relay), without sockets: bytes pass
/// both ways as they are, a side whose peer is full stops being read until the peer drains, and
/// either side ending ends the other.
struct ConnectionUpgradeTests {
    @Test func bytesPassBothWaysAsTheyAre() {
        let client = ConnectionUpgrade()
        let upstream = ConnectionUpgrade()
        ConnectionUpgrade.splice(client, upstream)
        let seen = Locked<[UInt8]>([])
        client.tapInput { bytes in seen.withLock { $0 += bytes } }
        client.received([0x81, 0x82, 1, 2, 3, 4, 5, 6])
        upstream.received([0x81, 0x01, 0x41])
        #expect(upstream.output.take(unsent: 0).pieces == [[0x81, 0x82, 1, 2, 3, 4, 5, 6]])
        #expect(client.output.take(unsent: 0).pieces == [[0x81, 0x01, 0x41]])
        #expect(seen.value == [0x81, 0x82, 1, 2, 3, 4, 5, 6], "a tap sees the client's bytes")
    }

    @Test func aFullPeerPausesReadingUntilItDrains() {
        let client = ConnectionUpgrade()
        let upstream = ConnectionUpgrade()
        ConnectionUpgrade.splice(client, upstream)
        let resumed = Locked(0)
        client.onInputResumed { resumed.withLock { $0 += 1 } }
        upstream.output.attach {}
        client.received(Array(repeating: 7, count: BodyStream.highWater))
        #expect(client.isInputPaused, "the upstream's side holds a quarter megabyte unsent")
        _ = upstream.output.take(unsent: 0)
        upstream.output.drained(unsent: 0)
        #expect(!client.isInputPaused)
        #expect(resumed.value == 1, "the connection is told to read again")
    }

    @Test func eitherSideEndingEndsTheOther() {
        let client = ConnectionUpgrade()
        let upstream = ConnectionUpgrade()
        ConnectionUpgrade.splice(client, upstream)
        upstream.received([1, 2])
        upstream.output.cancel()  // the upstream closed
        let batch = client.output.take(unsent: 0)
        #expect(batch.pieces == [[1, 2]], "what the upstream sent before it closed still goes out")
        #expect(batch.finished)

        let other = ConnectionUpgrade()
        let otherUpstream = ConnectionUpgrade()
        ConnectionUpgrade.splice(other, otherUpstream)
        other.output.cancel()  // the client left
        #expect(otherUpstream.output.take(unsent: 0).finished)
    }
}
