/// The types `ResponseParser` hands to the proxy: a response head with the framing the parser
/// chose for it, the error a parse ends with, and the limits it applies.
///
/// They are `package`, not `public`: only the proxy in a sibling module reads upstream
/// responses, and the shape of these types should stay free to change with it.

/// How the body of a response is delimited (RFC 9112 §6.3), as the parser decided it.
package enum ResponseFraming: Sendable, Equatable {
    /// No body: 1xx, 204, 304, or any response to HEAD, whatever its headers say.
    case none
    /// Exactly this many bytes (`Content-Length`).
    case length(Int)
    /// `Transfer-Encoding` whose final coding is `chunked`. Body pieces are the chunks' data;
    /// any other codings listed before `chunked` still apply to them.
    case chunked
    /// Everything until the upstream closes: no `Content-Length`, or a `Transfer-Encoding`
    /// whose final coding is not `chunked`. `endOfInput()` ends the body.
    case untilClose
}

/// A response head as received: the status line and the fields exactly as sent (order, repeats
/// and name casing kept, so two `Set-Cookie` stay two fields), plus the parser's decisions.
package struct ResponseHead: Sendable, Equatable {
    /// `HTTP/1.0` or `HTTP/1.1`; a higher 1.x minor is read as 1.1 (RFC 9110 §2.5).
    package var version: HTTPVersion
    /// 100...599.
    package var status: Int
    /// The reason phrase as sent, possibly empty (RFC 9112 §4: a client SHOULD ignore it).
    package var reason: String
    /// Field values are trimmed of surrounding whitespace; obs-fold is replaced by one SP.
    package var headers: HeaderFields
    package var framing: ResponseFraming
    /// Whether the connection may carry another exchange after this response ends (RFC 9112
    /// §9.3): not after `Connection: close`, nor an HTTP/1.0 response without `keep-alive`, nor
    /// read-until-close framing, nor an HTTP/1.0 response with `Transfer-Encoding` (RFC 9112
    /// §6.1: its framing is suspect, so the connection closes after it), nor when the framing is
    /// in doubt (`Content-Length` with `Transfer-Encoding`; a 204 with either). Meaningful for
    /// a final response; an informational head carries the same computation but decides nothing.
    package var connectionReusable: Bool
    /// Both `Transfer-Encoding` and `Content-Length` were received: Transfer-Encoding framed the
    /// message, and the proxy MUST NOT forward the `Content-Length` field (RFC 9112 §6.3 rule 3).
    package var mustDropContentLength: Bool

    package init(
        version: HTTPVersion,
        status: Int,
        reason: String,
        headers: HeaderFields,
        framing: ResponseFraming,
        connectionReusable: Bool,
        mustDropContentLength: Bool
    ) {
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers
        self.framing = framing
        self.connectionReusable = connectionReusable
        self.mustDropContentLength = mustDropContentLength
    }
}

/// Why an upstream response could not be read. The proxy answers `502 Bad Gateway` when no
/// byte of the response has gone downstream yet, and aborts the client's stream otherwise; in
/// both cases the upstream connection is closed, since its byte stream can no longer be trusted.
package struct ResponseParseError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// The bytes are not a valid HTTP/1.1 response (or one the proxy can relay).
        case malformed
        /// A limit of `ResponseParserLimits` was crossed.
        case tooLarge
        /// The upstream closed in the middle of a head or a body.
        case truncated
        /// The upstream closed before sending any byte of a response it owed. On a reused
        /// connection this is the keep-alive race (RFC 9112 §9.3.1): an idempotent request may
        /// be retried on a new connection.
        case noResponse
    }

    package let kind: Kind
    /// A short reason for logs and for the text of the proxy's 502.
    package let reason: String

    package init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    package var description: String { reason }

    static func malformed(_ reason: String) -> ResponseParseError { ResponseParseError(.malformed, reason) }
    static func tooLarge(_ reason: String) -> ResponseParseError { ResponseParseError(.tooLarge, reason) }
}

/// Limits on what an upstream may send. Bodies have none: they stream through, never held.
package struct ResponseParserLimits: Sendable, Equatable {
    /// The head: status line, fields, the empty line, and any empty lines before the status line.
    package var maxHeadBytes: Int = 64 * 1024
    /// Header fields in one head.
    package var maxHeaderCount: Int = 256
    /// One chunk-size line, extensions included, CRLF excluded.
    package var maxChunkLineBytes: Int = 4096
    /// The trailer section of a chunked body, its final empty line included.
    package var maxTrailerBytes: Int = 16 * 1024
    /// 1xx responses before one final response.
    package var maxInformational: Int = 16

    package init(
        maxHeadBytes: Int = 64 * 1024,
        maxHeaderCount: Int = 256,
        maxChunkLineBytes: Int = 4096,
        maxTrailerBytes: Int = 16 * 1024,
        maxInformational: Int = 16
    ) {
        self.maxHeadBytes = maxHeadBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxChunkLineBytes = maxChunkLineBytes
        self.maxTrailerBytes = maxTrailerBytes
        self.maxInformational = maxInformational
    }
}
