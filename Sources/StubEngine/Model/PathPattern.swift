import RegularExpressions
/// The `path` or `pathPattern` condition, compiled at load: an all-literal path is one string
/// comparison; other paths are split into segments, so matching is a walk over the request's
/// segments with no parsing and no regex for the common forms.
package struct PathPattern: Sendable {
    package enum Segment: Sendable, Equatable {
        case literal(String)
        /// `{name}`: one segment, captured for templates.
        case parameter(String)
        /// `*`: one segment.
        case wildcard
        /// `**` as the last segment: the rest, zero or more segments.
        case rest
    }

    package enum Kind: Sendable {
        case literal(String)
        case segments([Segment])
        case regex(CompiledRegex)
    }

    package let kind: Kind
    /// As written in the stub.
    package let source: String
    /// How specific the pattern is, for choosing among several matches: a literal path beats
    /// `{name}`, which beats `*`, which beats `**`, which beats a regular expression.
    package let specificityClass: Int
    package let literalSegmentCount: Int
    /// The `{name}`s, for checking template variables at load.
    package let parameterNames: Set<String>
    /// The first segment when it is literal and the path is not: the key of the prefix index.
    package let leadingLiteral: String?
    /// The segments as written (literal paths too; empty for a regex), for the near-miss report's
    /// cheap first pass over a large catalog.
    package let segmentList: [Segment]

    package static func segments(source: String, _ segments: [Segment]) -> PathPattern {
        PathPattern(source: source, segments: segments)
    }

    package static func regex(_ regex: CompiledRegex) -> PathPattern {
        PathPattern(regex: regex)
    }

    private init(source: String, segments: [Segment]) {
        self.source = source
        segmentList = segments
        let literals = segments.compactMap { if case .literal(let s) = $0 { s } else { nil } }
        literalSegmentCount = literals.count
        parameterNames = Set(segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } })
        if literals.count == segments.count {
            kind = .literal("/" + literals.joined(separator: "/"))
            specificityClass = 5
            leadingLiteral = nil
        } else {
            kind = .segments(segments)
            specificityClass = segments.contains(.rest) ? 2 : segments.contains(.wildcard) ? 3 : 4
            if case .literal(let first)? = segments.first { leadingLiteral = first } else { leadingLiteral = nil }
        }
    }

    private init(regex: CompiledRegex) {
        kind = .regex(regex)
        segmentList = []
        source = regex.pattern
        specificityClass = 1
        literalSegmentCount = 0
        parameterNames = []
        leadingLiteral = nil
    }

    /// The whole decoded path when every segment is literal: the key of the exact-path index.
    package var literalPath: String? { if case .literal(let path) = kind { path } else { nil } }

    package var isRegex: Bool { if case .regex = kind { true } else { false } }

    /// Matches a decoded request path; returns the `{name}` captures, or nil when it fails.
    /// `segments` is only evaluated for segment patterns.
    package func match(_ path: String, segments requestSegments: @autoclosure () -> [Substring]) -> [String: String]? {
        switch kind {
        case .literal(let literal):
            return path == literal ? [:] : nil
        case .regex(let regex):
            return regex.matchesWhole(path) ? [:] : nil
        case .segments(let segments):
            let requestSegments = requestSegments()
            var captures: [String: String] = [:]
            var i = 0
            for (n, segment) in segments.enumerated() {
                switch segment {
                case .rest:
                    return n == segments.count - 1 ? captures : nil
                case .literal(let s):
                    guard i < requestSegments.count, requestSegments[i] == s else { return nil }
                case .parameter(let name):
                    guard i < requestSegments.count, !requestSegments[i].isEmpty else { return nil }
                    captures[name] = String(requestSegments[i])
                case .wildcard:
                    guard i < requestSegments.count, !requestSegments[i].isEmpty else { return nil }
                }
                i += 1
            }
            return i == requestSegments.count ? captures : nil
        }
    }

    /// How far a request's segments are from this pattern, 0 (matches) to 1 (nothing in common),
    /// by position: cheap enough to run over thousands of stubs for one near-miss report.
    func roughDistance(_ requestSegments: [Substring]) -> Double {
        if case .regex = kind { return 1 }
        var differing = 0
        var compared = 0
        for (i, segment) in segmentList.enumerated() {
            if case .rest = segment { return Double(differing) / Double(max(compared, 1)) }
            compared += 1
            guard i < requestSegments.count else {
                differing += 1
                continue
            }
            if case .literal(let literal) = segment, requestSegments[i] != literal { differing += 1 }
        }
        let extra = max(0, requestSegments.count - segmentList.count)
        return Double(differing + extra) / Double(max(compared + extra, 1))
    }

    /// A decoded path split into segments after the leading slash. "/" is one empty segment,
    /// so a trailing slash stays significant ("/a/" is ["a", ""]).
    ///
    /// By `Character`s: a "/" followed by a combining mark is no separator. An ASCII path (nearly
    /// every one) is cut by its bytes instead, which is the same there, as no ASCII character
    /// combines with a "/": splitting by `Character`s cost some 9,500 instructions for
    /// "/v1/bench-template/7", on every request that a segment pattern answers.
    package static func split(_ path: String) -> [Substring] {
        if let segments = asciiSegments(path) { return segments }
        guard path.hasPrefix("/") else { return [Substring(path)] }
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
    }

    /// The first segment, as `split` cuts it, without cutting the rest; nil for a path that
    /// does not start with "/".
    package static func firstSegment(of path: String) -> String? {
        let ascii = path.utf8.withContiguousStorageIfAvailable { bytes -> String?? in
            guard let first = bytes.first else { return .some(nil) }
            guard first == UInt8(ascii: "/") else { return first < 0x80 ? .some(nil) : nil }
            var end = 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "/") {
                guard bytes[end] < 0x80 else { return nil }
                end += 1
            }
            // The "/" it stops at must be a Character of its own: no mark after it.
            guard end + 1 >= bytes.count || bytes[end + 1] < 0x80 else { return nil }
            return .some(String(decoding: UnsafeBufferPointer(rebasing: bytes[1..<end]), as: UTF8.self))
        }
        if let ascii, let answer = ascii { return answer }
        return path.hasPrefix("/") ? String(path.dropFirst().prefix { $0 != "/" }) : nil
    }

    /// `split` for an ASCII path, by bytes; nil for any other path.
    private static func asciiSegments(_ path: String) -> [Substring]? {
        let utf8 = path.utf8
        let separators = utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            var separators = 0
            for byte in bytes {
                guard byte < 0x80 else { return nil }
                if byte == UInt8(ascii: "/") { separators += 1 }
            }
            return separators
        }
        guard let separators, let count = separators else { return nil }
        guard utf8.first == UInt8(ascii: "/") else { return [Substring(path)] }
        var segments: [Substring] = []
        segments.reserveCapacity(count)
        var start = utf8.index(after: utf8.startIndex)
        var index = start
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: "/") {
                segments.append(Substring(utf8[start..<index]))
                start = utf8.index(after: index)
            }
            utf8.formIndex(after: &index)
        }
        segments.append(Substring(utf8[start..<index]))
        return segments
    }
}
