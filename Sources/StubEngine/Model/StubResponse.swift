import HTTP1

/// What a stub answers, compiled at load: the head and body are serialised once into a
/// `PreparedResponse`, so serving a static stub copies bytes and nothing more.
package struct StubResponse: Sendable {
    package let prepared: PreparedResponse
    package let delay: Delay?
    package let fault: Fault?
    package let dribble: Dribble?
    /// Set when the stub opted in with `"template": true` and uses `{{...}}`.
    let template: ResponseTemplate?
    /// `"proxy"`: forwarded to an upstream instead of answered from the stub.
    package let proxy: ProxyRule?
    /// Computed per request by code rather than written in the stub (StubKit's closure
    /// responders): given the request and the path captures, it promises the answer.
    package let computed: ComputedResponse?

    init(prepared: PreparedResponse, delay: Delay? = nil, fault: Fault? = nil, dribble: Dribble? = nil,
         template: ResponseTemplate? = nil, proxy: ProxyRule? = nil, computed: ComputedResponse? = nil) {
        self.prepared = prepared
        self.delay = delay
        self.fault = fault
        self.dribble = dribble
        self.template = template
        self.proxy = proxy
        self.computed = computed
    }

    /// A response that code computes for each request (see `computed`).
    package static func computed(_ compute: @escaping ComputedResponse) -> StubResponse {
        StubResponse(prepared: PreparedResponse(status: 200), computed: compute)
    }

    package var isTemplated: Bool { template != nil }

    package var status: Int { prepared.status }

    /// The response for one request: the delay is drawn per request when it is a range.
    func makeResponse(_ context: @autoclosure () -> TemplateContext) -> OutgoingResponse {
        let prepared = template?.render(context()) ?? self.prepared
        let delayMilliseconds = delay?.draw() ?? 0
        let delivery: ResponseDelivery
        switch fault {
        case .reset?: delivery = .reset
        case .empty?: delivery = .closeWithoutResponse
        case .garbage?: delivery = .rawThenClose(Fault.garbageBytes())
        case .hang?: delivery = .hang
        case nil:
            if let dribble { delivery = .dribble(chunks: dribble.chunks, durationMilliseconds: dribble.durationMilliseconds) }
            else { delivery = .normal }
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

    func draw() -> Int {
        switch self {
        case .fixed(let ms): ms
        case .uniform(let min, let max): Int.random(in: min...max)
        }
    }
}

package enum Fault: String, Sendable, CaseIterable {
    case reset, empty, garbage, hang

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
}
