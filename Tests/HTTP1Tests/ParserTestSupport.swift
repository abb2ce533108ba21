@testable import HTTP1

/// Feeds bytes to a parser the way a connection does and collects the events.
struct ParserDriver {
    var parser: RequestParser
    var pending: [UInt8] = []
    var requests: [IncomingRequest] = []
    var continues = 0
    var failure: HTTPParseError?

    init(limits: HTTPParserLimits = HTTPParserLimits()) {
        parser = RequestParser(limits: limits)
    }

    mutating func feed(_ bytes: [UInt8]) {
        pending += bytes
        while failure == nil {
            let (event, consumed) = pending.withUnsafeBufferPointer { parser.parse($0) }
            precondition(consumed <= pending.count)
            pending.removeFirst(consumed)
            switch event {
            case .needMore: if consumed == 0 { return }
            case .sendContinue: continues += 1
            case .request: requests.append(parser.takeRequest())
            case .failure(let e): failure = e
            }
        }
    }

    mutating func feed(_ text: String) { feed(Array(text.utf8)) }

    static func parse(_ text: String, limits: HTTPParserLimits = HTTPParserLimits()) -> ParserDriver {
        var d = ParserDriver(limits: limits)
        d.feed(text)
        return d
    }
}

func latin1(_ s: String) -> [UInt8] { s.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) } }
