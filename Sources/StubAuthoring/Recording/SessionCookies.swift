import HTTP1
import JSON

/// The sessions a recording walked, read from its cookies: a cookie the recorded server set
/// (`Set-Cookie`) and the client sent back in a later request is a session cookie. Requests are
/// told apart by the session they carried rather than by their order, so the recorded state
/// lives where the real server kept it, in the client's cookie: a login, me, logout script
/// replays any number of times, and two clients do not share it.
///
/// Values are secrets, so each value the server set is written as a stand-in (`recorded-1`,
/// `recorded-2`, ... per cookie name, in the order they were set); `--keep-secrets` keeps the
/// real ones.
struct SessionCookies {
    /// Stand-ins by cookie name, then by real value.
    private var standIns: [String: [String: String]] = [:]

    init(_ exchanges: [RecordedExchange], keepSecrets: Bool) {
        var setSoFar: [String: [String]] = [:]
        var sentBack: Set<String> = []
        for exchange in exchanges {
            for cookie in exchange.requestCookies where setSoFar[cookie.name]?.contains(cookie.value) ?? false {
                sentBack.insert(cookie.name)
            }
            for field in exchange.headers where asciiCaseInsensitiveEquals(field.name, "Set-Cookie") {
                guard let cookie = Self.setCookie(field.value), !cookie.value.isEmpty else { continue }
                if !(setSoFar[cookie.name]?.contains(cookie.value) ?? false) {
                    setSoFar[cookie.name, default: []].append(cookie.value)
                }
            }
        }
        for name in sentBack {
            var values: [String: String] = [:]
            for (n, value) in (setSoFar[name] ?? []).enumerated() {
                values[value] = keepSecrets ? value : "recorded-\(n + 1)"
            }
            standIns[name] = values
        }
    }

    var isEmpty: Bool { standIns.isEmpty }

    /// The session cookies a request carried, as stand-ins, in the order sent.
    func session(of exchange: RecordedExchange) -> [(name: String, value: String)] {
        exchange.requestCookies.compactMap { cookie in
            standIns[cookie.name]?[cookie.value].map { (cookie.name, $0) }
        }
    }

    /// A `Set-Cookie` value for a session cookie, as a stub writes it: the value replaced by its
    /// stand-in (an empty one, which clears the cookie, stays empty) and `Domain`, `Expires` and
    /// `Secure` left out, since the replay is served over plain http on whatever host and port
    /// the client uses, and a recorded expiry date would one day lie in the past. nil for any
    /// other cookie (the secret rule decides those).
    func rewrite(setCookie text: String) -> String? {
        guard let cookie = Self.setCookie(text), let values = standIns[cookie.name] else { return nil }
        let value = cookie.value.isEmpty ? "" : values[cookie.value] ?? "recorded-unknown"
        let kept = text.split(separator: ";").dropFirst().map { $0.trimmingSpaces() }.filter { attribute in
            let name = attribute.prefix { $0 != "=" }.lowercased()
            return !["domain", "expires", "secure"].contains(name)
        }
        return ([cookie.name + "=" + value] + kept).joined(separator: "; ")
    }

    /// `{"matches": ...}` on the `Cookie` field for a session: each cookie with its value, in the
    /// order the client sent them, with anything else around them.
    static func condition(_ session: [(name: String, value: String)]) -> JSONNode {
        let pairs = session.map { regexLiteral("\($0.name)=\($0.value)") }
        let pattern = "(.*;\\s*)?" + pairs.joined(separator: ";\\s*(.*;\\s*)?") + "(;.*)?"
        return .object([("matches", .string(pattern))])
    }

    /// The name and value of a `Set-Cookie` field (`name=value; Path=/`).
    static func setCookie(_ text: String) -> (name: String, value: String)? {
        let pair = text.prefix { $0 != ";" }
        guard let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingSpaces()
        guard !name.isEmpty else { return nil }
        return (name, pair[pair.index(after: equals)...].trimmingSpaces())
    }

    /// Text matched literally by the stub format's regular expressions: ASCII punctuation
    /// escaped (a backslash before punctuation is always a literal there).
    private static func regexLiteral(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII, !(scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)), scalar != " " {
                out.append("\\")
            }
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}
