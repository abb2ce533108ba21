/// Why a request was refused. Each maps to the status RFC 9110/9112 calls for; the server answers
/// it once and closes the connection, because after a framing error the byte stream cannot be
/// trusted to hold a next request.
package struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        case badRequest  // 400
        case requestTimeout  // 408
        case bodyTooLarge  // 413
        case targetTooLong  // 414
        case headersTooLarge  // 431
        case notImplemented  // 501
        case versionNotSupported  // 505
    }

    package let kind: Kind
    /// A short reason for logs and for the text body of the rejection.
    package let reason: String

    package init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    package var status: Int {
        switch kind {
        case .badRequest: 400
        case .requestTimeout: 408
        case .bodyTooLarge: 413
        case .targetTooLong: 414
        case .headersTooLarge: 431
        case .notImplemented: 501
        case .versionNotSupported: 505
        }
    }

    package var description: String { "\(status) \(reason)" }

    static func bad(_ reason: String) -> HTTPParseError { HTTPParseError(.badRequest, reason) }
}

/// Limits a server applies while parsing. The defaults are the contract's.
package struct HTTPParserLimits: Sendable, Equatable {
    /// The whole header section, request line included (431 past it).
    package var maxHeaderBytes: Int = 64 * 1024
    /// The request-target (414 past it).
    package var maxTargetBytes: Int = 8 * 1024
    /// The decoded body, by Content-Length or chunked (413 past it).
    package var maxBodyBytes: Int = 32 * 1024 * 1024
    /// The number of header fields (431 past it).
    package var maxHeaderCount: Int = 256
    /// `CONNECT host:port` is handed to the handler (a forward proxy); otherwise it gets 501.
    package var acceptsConnect = false

    package init() {}

    package init(
        maxHeaderBytes: Int = 64 * 1024,
        maxTargetBytes: Int = 8 * 1024,
        maxBodyBytes: Int = 32 * 1024 * 1024,
        maxHeaderCount: Int = 256
    ) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxTargetBytes = maxTargetBytes
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderCount = maxHeaderCount
    }
}
