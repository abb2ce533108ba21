/// Why a request was refused. Each maps to the status RFC 9110/9112 calls for; the server answers
/// it once and closes the connection, because after a framing error the byte stream cannot be
/// trusted to hold a next request.
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case badRequest          // 400
        case requestTimeout      // 408
        case bodyTooLarge        // 413
        case targetTooLong       // 414
        case headersTooLarge     // 431
        case notImplemented      // 501
        case versionNotSupported // 505
    }

    public let kind: Kind
    /// A short reason for logs and for the text body of the rejection.
    public let reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var status: Int {
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

    public var description: String { "\(status) \(reason)" }

    static func bad(_ reason: String) -> HTTPParseError { HTTPParseError(.badRequest, reason) }
}

/// Limits a server applies while parsing. The defaults are the contract's.
public struct HTTPParserLimits: Sendable, Equatable {
    /// The whole header section, request line included (431 past it).
    public var maxHeaderBytes: Int = 64 * 1024
    /// The request-target (414 past it).
    public var maxTargetBytes: Int = 8 * 1024
    /// The decoded body, by Content-Length or chunked (413 past it).
    public var maxBodyBytes: Int = 32 * 1024 * 1024
    /// The number of header fields (431 past it).
    public var maxHeaderCount: Int = 256

    public init() {}

    public init(maxHeaderBytes: Int = 64 * 1024, maxTargetBytes: Int = 8 * 1024,
                maxBodyBytes: Int = 32 * 1024 * 1024, maxHeaderCount: Int = 256) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxTargetBytes = maxTargetBytes
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderCount = maxHeaderCount
    }
}
