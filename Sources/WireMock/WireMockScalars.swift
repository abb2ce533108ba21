import JSON
import StubEngine
/// Scalars read the way WireMock's JSON reader (Jackson, with its default coercions) reads them:
/// a number may be written as a string (`"priority": "1"`, `"status": "200"`), a boolean as a
/// string (`"caseInsensitive": "true"`), a string as a number or a boolean. Real folders rely
/// on it, and WireMock serves them without a word, so the WireMock dialect accepts the same.
/// The native stub format does not: its strictness is a feature.
enum WireMockScalars {
    /// A whole number: a JSON number, or a string holding one (spaces around it allowed, as
    /// Jackson trims). A fraction is cut toward zero, as Jackson does for an `int` field
    /// (`1.5` is 1); nil for anything else.
    static func integer(_ node: JSONNode) -> Int? {
        if let n = node.number { return truncated(n.value) }
        guard let text = node.string?.trimmingJSONSpace, !text.isEmpty else { return nil }
        if let n = Int(text) { return n }
        return Double(text).flatMap(truncated)
    }

    /// A number, or a string holding one.
    static func number(_ node: JSONNode) -> Double? {
        if let n = node.number { return n.value }
        return node.string.flatMap { Double($0.trimmingJSONSpace) }.flatMap { $0.isFinite ? $0 : nil }
    }

    /// `true`/`false`, or a string holding one (any case, as Jackson reads `"TRUE"`).
    static func bool(_ node: JSONNode) -> Bool? {
        if let b = node.bool { return b }
        switch node.string?.trimmingJSONSpace.lowercased() {
        case "true"?: return true
        case "false"?: return false
        default: return nil
        }
    }

    /// A string, or a number or boolean given where a string belongs (Jackson writes it as text:
    /// `"body": 42` is the body `42`).
    static func string(_ node: JSONNode) -> String? {
        if let s = node.string { return s }
        if let n = node.number { return n.text }
        return node.bool.map { $0 ? "true" : "false" }
    }

    /// Whether reading `node` as a number needed a coercion worth no warning; a fraction cut to a
    /// whole number does get one (the mapping may not mean what it says).
    static func isFraction(_ node: JSONNode) -> Bool {
        let value = node.number?.value ?? node.string.flatMap { Double($0.trimmingJSONSpace) }
        return value.map { $0.rounded(.towardZero) != $0 } ?? false
    }

    private static func truncated(_ value: Double) -> Int? {
        guard value.isFinite, abs(value) < 1e15 else { return nil }
        return Int(value.rounded(.towardZero))
    }
}

private extension String {
    /// Without the spaces Jackson trims around a number or boolean written as a string.
    var trimmingJSONSpace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !Self.isSpace($0) }),
            let last = scalars.lastIndex(where: { !Self.isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }
}
