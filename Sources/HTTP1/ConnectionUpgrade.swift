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
        /// What arrived before the protocol listened.
        var held: [UInt8] = []
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

    /// The connection's side: bytes the client sent.
    package func received(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let handler = input.withLock { state -> (@Sendable ([UInt8]) -> Void)? in
            if state.handler == nil { state.held.append(contentsOf: bytes) }
            return state.handler
        }
        handler?(bytes)
    }
}
