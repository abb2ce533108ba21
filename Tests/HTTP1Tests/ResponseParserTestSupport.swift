import Testing
@testable import HTTP1

/// What a response parser reported, with consecutive body pieces joined: the same transcript
/// whatever the read sizes, which is what the split-independence tests compare.
enum ResponseRecord: Equatable, CustomStringConvertible {
    case informational(ResponseHead)
    case head(ResponseHead)
    case body([UInt8])
    case end
    case failure(ResponseParseError)

    var description: String {
        switch self {
        case .informational(let h): "informational(\(h.status))"
        case .head(let h): "head(\(h.status) \(h.framing))"
        case .body(let b): "body(\(String(decoding: b, as: UTF8.self).debugDescription))"
        case .end: "end"
        case .failure(let e): "failure(\(e.kind): \(e.reason))"
        }
    }
}

/// Feeds bytes to a `ResponseParser` the way the proxy's upstream connection would, copying
/// each body range out of the buffer before the consumed bytes are dropped.
struct ResponseDriver {
    var parser: ResponseParser
    var pending: [UInt8] = []
    var records: [ResponseRecord] = []
    /// Body pieces as they came, before joining.
    var pieces = 0

    init(methods: [String] = ["GET"], limits: ResponseParserLimits = ResponseParserLimits()) {
        parser = ResponseParser(limits: limits)
        for method in methods { parser.expectResponse(toMethod: method) }
    }

    var failure: ResponseParseError? {
        if case .failure(let e) = records.last { return e }
        return nil
    }
    var heads: [ResponseHead] { records.compactMap { if case .head(let h) = $0 { h } else { nil } } }
    var body: [UInt8] {
        records.flatMap { record -> [UInt8] in if case .body(let b) = record { return b } else { return [] } }
    }
    var ends: Int { records.filter { $0 == .end }.count }

    mutating func feed(_ bytes: [UInt8]) {
        pending += bytes
        while failure == nil {
            let count = pending.count
            let (event, consumed) = pending.withUnsafeBufferPointer { parser.parse($0) }
            precondition(consumed >= 0 && consumed <= count, "consumed \(consumed) of \(count)")
            if case .body(let range) = event {
                precondition(
                    !range.isEmpty && range.upperBound <= consumed,
                    "body range \(range) outside the consumed \(consumed)"
                )
                pieces += 1
                append(.body(Array(pending[range])))
            }
            pending.removeFirst(consumed)
            switch event {
            case .needMore: if consumed == 0 { return }
            case .body: break
            case .informational(let h): append(.informational(h))
            case .head(let h): append(.head(h))
            case .end: append(.end)
            case .failure(let e): append(.failure(e))
            }
        }
    }

    mutating func feed(_ text: String) { feed(latin1(text)) }

    /// The connection closed.
    mutating func close() {
        switch parser.endOfInput() {
        case .end: append(.end)
        case .failure(let e): if failure == nil { append(.failure(e)) }
        default: break
        }
    }

    private mutating func append(_ record: ResponseRecord) {
        if case .body(let more) = record, case .body(let sofar) = records.last {
            records[records.count - 1] = .body(sofar + more)
        } else {
            records.append(record)
        }
    }

    /// The input fed whole, split in two at every position, and one byte at a time (then the
    /// close, when `eof`): every way must give the same transcript, which is returned.
    static func everyWay(
        _ text: String,
        methods: [String] = ["GET"],
        eof: Bool = false,
        limits: ResponseParserLimits = ResponseParserLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> ResponseDriver {
        let bytes = latin1(text)
        func run(_ pieces: [[UInt8]]) -> ResponseDriver {
            var d = ResponseDriver(methods: methods, limits: limits)
            for piece in pieces { d.feed(piece) }
            if eof { d.close() }
            return d
        }
        let whole = run([bytes])
        for split in 0...bytes.count {
            let d = run([Array(bytes[..<split]), Array(bytes[split...])])
            #expect(
                d.records == whole.records,
                "split at \(split): \(d.records) vs \(whole.records)",
                sourceLocation: sourceLocation
            )
        }
        let bytewise = run(bytes.map { [$0] })
        #expect(
            bytewise.records == whole.records,
            "byte at a time: \(bytewise.records)",
            sourceLocation: sourceLocation
        )
        return whole
    }
}
