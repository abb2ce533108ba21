@testable import HTTP1
import Testing

/// Pending answers and streamed bodies: once over, nothing they held stays alive (the soak found
/// streamed admin listings leaking their producer, and with it a copy of the journal).
@Suite struct ReplyTests {
    final class Producer: Sendable {
        let stream: BodyStream
        init(_ stream: BodyStream) { self.stream = stream }
    }

    @Test func aFinishedStreamLetsGoOfItsProducer() {
        weak var weakProducer: Producer?
        do {
            let stream = BodyStream()
            let producer = Producer(stream)
            weakProducer = producer
            stream.onWritable { _ = producer.stream.write([1]) }
            stream.onCancel { _ = producer }
            stream.attach {}
            stream.write([1, 2, 3])
            stream.finish()
        }
        #expect(weakProducer == nil, "the stream and its producer kept each other alive")
    }

    @Test func aCancelledStreamLetsGoOfItsProducer() {
        weak var weakProducer: Producer?
        do {
            let stream = BodyStream(isLongLived: true)
            let producer = Producer(stream)
            weakProducer = producer
            stream.onWritable { _ = producer }
            stream.attach {}
            stream.cancel()
            #expect(!stream.write([1]), "a cancelled stream takes nothing")
        }
        #expect(weakProducer == nil)
    }

    final class Responder: Sendable {
        let pending = PendingResponse()
    }

    @Test func aCompletedAnswerLetsGoOfItsResponder() {
        weak var weakResponder: Responder?
        do {
            let responder = Responder()
            weakResponder = responder
            responder.pending.onCancel { _ = responder }
            responder.pending.adjust { _ in _ = responder }
            responder.pending.complete(.text(200, "done"))
        }
        #expect(weakResponder == nil, "the answer kept its responder alive")
    }

    @Test func adjustmentsApplyInOrderAndObserversSeeTheFinalResponse() {
        let pending = PendingResponse()
        pending.adjust { $0.delayMilliseconds += 5 }
        pending.adjust { $0.delayMilliseconds *= 2 }
        let seen = Box()
        pending.observe { seen.set($0?.delayMilliseconds) }
        pending.complete(.text(200, "x"))
        let delivered = Box()
        pending.whenComplete { delivered.set($0.delayMilliseconds) }
        #expect(seen.get() == 10)
        #expect(delivered.get() == 10)
        // Only the first completion counts.
        pending.complete(.text(500, "late"))
        #expect(delivered.get() == 10)
    }

    @Test func cancellingTellsTheResponderAndTheObservers() {
        let pending = PendingResponse()
        let cancelled = Box()
        let observed = Box()
        pending.onCancel { cancelled.set(1) }
        pending.observe { observed.set($0 == nil ? -1 : 1) }
        pending.cancel()
        #expect(pending.isCancelled)
        #expect(cancelled.get() == 1)
        #expect(observed.get() == -1)
        pending.complete(.text(200, "too late"))
        let delivered = Box()
        pending.whenComplete { _ in delivered.set(1) }
        #expect(delivered.get() == nil)
    }

    final class Box: @unchecked Sendable {
        private var value: Int?
        func set(_ v: Int?) { value = v }
        func get() -> Int? { value }
    }
}
