import Dispatch
import HTTP1
import SystemSupport

/// Plays one request's event stream: writes each event to the response's `BodyStream` when it
/// is due, then closes, holds with heartbeats or starts again.
///
/// Due times are absolute (the request's arrival plus the delays so far), so a late timer does
/// not push every later event back. All players share one serial queue of timers: a held stream
/// costs a pending timer and this object, no thread.
///
/// A client that reads nothing cannot make the server hold more than the stream's bound
/// (`BodyStream.highWater` and one event): when a write finds the bound reached, the player
/// waits for the client to take some; if it takes nothing for `stallMilliseconds`, the stream
/// is dropped and the journal says why.
final class EventStreamPlayer: Sendable {
    static let queue = DispatchQueue(label: "stubserver.event-streams")

    private let script: EventStreamScript
    private let stream: BodyStream
    private let inputs: TemplateInputs
    let transcript: StreamTranscript
    /// How long a client may leave a full buffer untouched before its stream is dropped.
    private let stallMilliseconds: Int

    private struct State {
        var next: Int
        var due: DispatchTime
        /// Waiting for the client to take some of a full buffer.
        var waitingForRoom = false
        /// Past the last event of a `hold` stream: only heartbeats from now on.
        var holding = false
        var ended = false
        /// Counts timers set: a timer that fires after a newer one was set does nothing, so
        /// no timer needs cancelling.
        var generation = 0
    }

    private let state: Locked<State>

    private init(
        script: EventStreamScript,
        stream: BodyStream,
        inputs: TemplateInputs,
        transcript: StreamTranscript,
        stallMilliseconds: Int,
        start: Int,
        due: DispatchTime
    ) {
        self.stallMilliseconds = stallMilliseconds
        self.script = script
        self.stream = stream
        self.inputs = inputs
        self.transcript = transcript
        state = Locked(State(next: start, due: due))
    }

    /// The response for one request: the head now, the events as they fall due. `delay` is the
    /// response's own delay, before the head, which the first event's delay follows.
    static func response(
        for script: EventStreamScript,
        prepared: PreparedResponse,
        delayMilliseconds: Int,
        inputs: TemplateInputs,
        transcript: StreamTranscript,
        stallMilliseconds: Int
    ) -> OutgoingResponse {
        let stream = BodyStream(isLongLived: true)
        let lastEventID = inputs.request.headers["Last-Event-ID"]
        let start = script.resumeIndex(lastEventID: lastEventID)
        if start > 0, let lastEventID { transcript.note("resumed after event id \(lastEventID)") }
        let player = EventStreamPlayer(
            script: script,
            stream: stream,
            inputs: inputs,
            transcript: transcript,
            stallMilliseconds: stallMilliseconds,
            start: start,
            due: .now() + .milliseconds(delayMilliseconds)
        )
        stream.onCancel { player.clientLeft() }
        stream.onWritable { player.roomAgain() }
        queue.async { player.advance() }
        return OutgoingResponse(prepared, delayMilliseconds: delayMilliseconds, delivery: .stream(stream))
    }

    // MARK: On the queue

    /// Writes every event that is due, then sets a timer for the next one.
    private func advance() {
        let taken = state.withLock { s -> State? in
            guard !s.ended, !s.waitingForRoom else { return nil }
            return s
        }
        guard var current = taken else { return }
        let events = script.events
        while true {
            if current.next == events.count {
                switch script.end {
                case .close:
                    end(finishing: true, "the stream ended after its last event")
                    return
                case .hold(let heartbeat):
                    // Right after the last event the first heartbeat is scheduled; when it is
                    // due a comment line goes out and the next one is scheduled.
                    if current.holding {
                        guard current.due <= .now() else {
                            schedule(current)
                            return
                        }
                        if !write(Self.heartbeatBytes, note: nil) { return }
                    }
                    current.holding = true
                    current.due = current.due + .milliseconds(heartbeat)
                    schedule(current)
                    return
                case .repeatAll:
                    current.next = 0
                }
            }
            let event = events[current.next]
            let due = current.due + .milliseconds(event.delayMilliseconds)
            guard due <= .now() else {
                // `current.due` stays the previous event's time: the delay counts from it.
                schedule(current, wakeAt: due)
                return
            }
            current.due = due
            current.next += 1
            state.withLock { s in
                s.next = current.next
                s.due = current.due
            }
            switch event.content {
            case .fixed(let bytes):
                if !write(bytes, note: event.id.map { "event id \($0)" } ?? "event") { return }
            case .templated(let fields, let data):
                guard let rendered = data.renderString(inputs.context()) else {
                    end(
                        finishing: false,
                        "dropped: an event's data rendered more than \(inputs.maximumRenderedBytes) bytes"
                    )
                    return
                }
                if !write(fields.encode(data: rendered), note: event.id.map { "event id \($0)" } ?? "event") { return }
            case .fault(let fault):
                transcript.note("fault \(fault.rawValue)")
                // Ended and journaled first: the abort cancels the stream, which is no client
                // leaving, and the client may look at the journal as soon as it sees the cut.
                state.withLock { $0.ended = true }
                transcript.end(fault == .hang ? "hanging: nothing more is sent" : "cut by the fault \(fault.rawValue)")
                switch fault {
                case .reset: stream.abort(resetting: true)
                case .empty: stream.abort()
                case .hang: break
                }
                return
            }
        }
    }

    private static let heartbeatBytes = Array(":\n\n".utf8)

    /// Writes; false when the player must stop here (the client is gone, or the buffer is full
    /// and the player now waits for room).
    private func write(_ bytes: [UInt8], note: String?) -> Bool {
        if let note { transcript.sent(note, bytes: bytes) }
        if stream.write(bytes) { return true }
        guard !stream.isCancelled else { return false }
        let startWaiting = state.withLock { s -> Bool in
            guard !s.ended else { return false }
            s.waitingForRoom = true
            return true
        }
        if startWaiting {
            Self.queue.asyncAfter(deadline: .now() + .milliseconds(stallMilliseconds)) { [weak self] in
                self?.stalled()
            }
        }
        return false
    }

    private func schedule(_ current: State, wakeAt: DispatchTime? = nil) {
        let generation = state.withLock { s -> Int? in
            guard !s.ended else { return nil }
            s.next = current.next
            s.due = current.due
            s.holding = current.holding
            s.generation += 1
            return s.generation
        }
        guard let generation else { return }
        Self.queue.asyncAfter(deadline: wakeAt ?? current.due) { [weak self] in
            guard let self, self.state.withLock({ $0.generation == generation }) else { return }
            self.advance()
        }
    }

    private func stalled() {
        let drop = state.withLock { s -> Bool in s.waitingForRoom && !s.ended }
        guard drop else { return }
        let waiting = BodyStream.highWater / 1024
        end(
            finishing: false,
            "dropped: the client read nothing for \(stallMilliseconds) ms with \(waiting) KiB waiting"
        )
    }

    private func end(finishing: Bool, _ why: String) {
        let first = state.withLock { s -> Bool in
            defer { s.ended = true }
            return !s.ended
        }
        guard first else { return }
        if finishing { stream.finish() } else { stream.abort() }
        transcript.end(why)
    }

    // MARK: From the connection

    private func roomAgain() {
        let resume = state.withLock { s -> Bool in
            guard s.waitingForRoom, !s.ended else { return false }
            s.waitingForRoom = false
            return true
        }
        if resume { Self.queue.async { self.advance() } }
    }

    private func clientLeft() {
        let first = state.withLock { s -> Bool in
            defer { s.ended = true }
            return !s.ended
        }
        guard first else { return }
        transcript.end("the client left")
    }
}
