#if canImport(SystemSupport)
import SystemSupport
#endif

/// A connection handed to another protocol after `101 Switching Protocols` (a WebSocket):
/// from then on its bytes are not HTTP. The handler answers with `.upgrade(upgrade)` and a
/// 101 head; the server writes the head, then passes every byte the client sends to `onInput`
/// (on the connection's loop, in order) and writes what the protocol writes to `output`, as
/// it is, with the stream's back-pressure.
///
/// The protocol ends the connection with `output.finish()` (a clean close once written) or
/// `output.abort()`; the client leaving or the server stopping cancels `output`, whose
/// `onCancel` handlers then run.
package final class ConnectionUpgrade: Sendable {
    /// Bytes to the client, unframed. Long-lived: exempt from the idle timeout, counted with
    /// the server's streams, ended when it stops.
    package let output = BodyStream(isLongLived: true)

    private struct Input {
        var handler: (@Sendable ([UInt8]) -> Void)?
        var taps: [@Sendable ([UInt8]) -> Void] = []
        /// What arrived before the protocol listened.
        var held: [UInt8] = []
        var paused = false
        var resumed: (@Sendable () -> Void)?
    }

    private let input = Locked(Input())

    package init() {}

    /// The protocol's side: bytes from the client. Set once; what came before goes first.
    package func onInput(_ handler: @escaping @Sendable ([UInt8]) -> Void) {
        let held = input.withLock { state -> [UInt8] in
            state.handler = handler
            defer { state.held = [] }
            return state.held
        }
        if !held.isEmpty { handler(held) }
    }

    /// Sees every byte the client sends from now on, before the protocol does (the journal
    /// watches a proxied WebSocket this way).
    package func tapInput(_ observer: @escaping @Sendable ([UInt8]) -> Void) {
        input.withLock { $0.taps.append(observer) }
    }

    /// Back-pressure toward the client: the connection stops reading until `resumeInput()`
    /// (a relay whose other side is slow).
    package func pauseInput() {
        input.withLock { $0.paused = true }
    }

    package func resumeInput() {
        let resumed = input.withLock { state -> (@Sendable () -> Void)? in
            guard state.paused else { return nil }
            state.paused = false
            return state.resumed
        }
        resumed?()
    }

    /// The connection's side: whether to read from the client now.
    package var isInputPaused: Bool { input.withLock { $0.paused } }

    /// The connection's side: `handler` (which must hop to the connection's loop) runs when
    /// reading may go on after a pause.
    package func onInputResumed(_ handler: @escaping @Sendable () -> Void) {
        input.withLock { $0.resumed = handler }
    }

    /// The connection's side: bytes the client sent.
    package func received(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let (handler, taps) = input.withLock {
            state -> ((@Sendable ([UInt8]) -> Void)?, [@Sendable ([UInt8]) -> Void]) in
            if state.handler == nil { state.held.append(contentsOf: bytes) }
            return (state.handler, state.taps)
        }
        for tap in taps { tap(bytes) }
        handler?(bytes)
    }

    /// Joins two upgraded connections (a client's and an upstream's, for the proxy): what
    /// either sends is written to the other as it is, with back-pressure both ways (a side
    /// whose peer cannot take more stops being read), and when either ends, the other is
    /// ended once what it was given has been written.
    package static func splice(_ a: ConnectionUpgrade, _ b: ConnectionUpgrade) {
        relay(from: a, to: b)
        relay(from: b, to: a)
    }

    private static func relay(from source: ConnectionUpgrade, to target: ConnectionUpgrade) {
        let output = target.output
        source.onInput { [weak source] bytes in
            if !output.write(bytes) && !output.isCancelled { source?.pauseInput() }
        }
        output.onWritable { [weak source] in source?.resumeInput() }
        // The target's connection has ended: the source's is ended after what it was given.
        output.onCancel { [weak source] in source?.output.finish() }
    }
}
