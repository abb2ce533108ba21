import HTTP1
import SystemSupport

/// What a stub answers, compiled at load: the head and body are serialised once into a
/// `PreparedResponse`, so serving a static stub copies bytes and nothing more.
package struct StubResponse: Sendable {
    package let prepared: PreparedResponse
    package let delay: Delay?
    package let fault: Fault?
    package let dribble: Dribble?
    /// Set when the stub opted in with `"template": true` and uses `{{...}}` (or, for a
    /// WireMock mapping, when it is templated with Handlebars).
    package let template: (any ResponseRenderer)?
    /// `"proxy"`: forwarded to an upstream instead of answered from the stub.
    package let proxy: ProxyRule?
    /// Computed per request by code rather than written in the stub (StubKit's closure
    /// responders): given the request and the path captures, it promises the answer.
    package let computed: ComputedResponse?
    /// Server-sent events (`"events"`) or, for a `"websocket"` stub, its script: answers that
    /// go on after the head. One reference, so a plain response stays as small as it was.
    package let stream: StreamAnswer?

    package init(
        prepared: PreparedResponse,
        delay: Delay? = nil,
        fault: Fault? = nil,
        dribble: Dribble? = nil,
        template: (any ResponseRenderer)? = nil,
        proxy: ProxyRule? = nil,
        computed: ComputedResponse? = nil,
        stream: StreamAnswer? = nil
    ) {
        self.prepared = prepared
        self.delay = delay
        self.fault = fault
        self.dribble = dribble
        self.template = template
        self.proxy = proxy
        self.computed = computed
        self.stream = stream
    }

    /// A response that code computes for each request (see `computed`).
    package static func computed(_ compute: @escaping ComputedResponse) -> StubResponse {
        StubResponse(prepared: PreparedResponse(status: 200), computed: compute)
    }

    package var isTemplated: Bool { template != nil }

    package var events: EventStreamScript? { if case .events(let script)? = stream { script } else { nil } }
    package var websocket: WebSocketScript? { if case .webSocket(let script)? = stream { script } else { nil } }

    package var status: Int { prepared.status }

    /// True when nothing about the response varies per request: `makeResponse` gives its
    /// prepared bytes as they are, with no delay, every time.
    var isFixed: Bool {
        template == nil && computed == nil && proxy == nil && delay == nil && fault == nil && dribble == nil
            && stream == nil
    }

    /// The response for one request: the delay is drawn per request when it is a range.
    func makeResponse(_ context: @autoclosure () -> TemplateContext) -> OutgoingResponse {
        let prepared = template?.render(context()) ?? self.prepared
        let delayMilliseconds = delay?.draw() ?? 0
        let delivery: ResponseDelivery
        switch fault {
        case .reset?: delivery = .reset
        case .empty?: delivery = .closeWithoutResponse
        case .garbage?: delivery = .rawThenClose(Fault.garbageBytes())
        case .malformedChunk?: delivery = .rawThenClose(Fault.malformedChunkBytes)
        case .hang?: delivery = .hang
        case nil:
            if let dribble {
                delivery = .dribble(chunks: dribble.chunks, durationMilliseconds: dribble.durationMilliseconds)
            } else {
                delivery = .normal
            }
        }
        return OutgoingResponse(prepared, delayMilliseconds: delayMilliseconds, delivery: delivery)
    }
}

/// Code that answers a request: the request and its path captures in, the answer promised.
/// It runs off the event loop, so it may take its time.
package typealias ComputedResponse = @Sendable (IncomingRequest, [String: String]) -> PendingResponse

package enum Delay: Sendable, Equatable {
    case fixed(Int)
    case uniform(min: Int, max: Int)
    /// WireMock's `lognormal`: `median * e^(sigma * N(0,1))` milliseconds, capped at `max`,
    /// plus a fixed part (`fixedDelayMilliseconds` beside it).
    case logNormal(median: Int, sigma: Double, max: Int?, plus: Int)

    func draw() -> Int {
        switch self {
        case .fixed(let ms): return ms
        case .uniform(let min, let max): return Int.random(in: min...max)
        case .logNormal(let median, let sigma, let cap, let plus):
            // Box-Muller: a standard normal from two uniforms.
            let u1 = Double.random(in: Double.ulpOfOne..<1)
            let u2 = Double.random(in: 0..<1)
            let normal = (-2 * Maths.log(u1)).squareRoot() * Maths.cos(2 * Double.pi * u2)
            let value = (Double(median) * Maths.exp(sigma * normal)).rounded()
            let bounded = min(value.isFinite ? value : 600_000, Double(cap ?? 600_000))
            return Int(max(0, bounded)) + plus
        }
    }
}

package enum Fault: String, Sendable, CaseIterable {
    case reset, empty, garbage, hang
    /// WireMock's MALFORMED_RESPONSE_CHUNK: a 200 head announcing a chunked body, then bytes
    /// that are not a chunk, then close. Not a key of the stub format.
    case malformedChunk

    /// The faults a stub file may name.
    package static let native: [Fault] = [.reset, .empty, .garbage, .hang]

    static let malformedChunkBytes: [UInt8] = Array(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nlskdu018973t09sylgasjkfg1][]'./.sdlv".utf8
    )

    /// Bytes that are not HTTP: what a misbehaving proxy or a crashed backend might send.
    static func garbageBytes() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let count = Int.random(in: 16...256, using: &generator)
        // Never starts with "HTTP/" by construction: the first byte is below 0x20.
        return [UInt8.random(in: 0...0x1F, using: &generator)]
            + (1..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}

package struct Dribble: Sendable, Equatable {
    package let chunks: Int
    package let durationMilliseconds: Int

    package init(chunks: Int, durationMilliseconds: Int) {
        self.chunks = chunks
        self.durationMilliseconds = durationMilliseconds
    }
}
