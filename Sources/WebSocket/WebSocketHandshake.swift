import SystemSupport

/// The opening handshake, server side (RFC 6455 §4.2): is a request an upgrade, is it a valid
/// one, and the `Sec-WebSocket-Accept` value that answers it.
package enum WebSocketHandshake {
    /// The GUID every server appends to the client's key (§1.3).
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `Sec-WebSocket-Accept` for a client's `Sec-WebSocket-Key`: base64 of the SHA-1 of the
    /// key (trimmed) and the GUID.
    package static func acceptValue(forKey key: String) -> String {
        let trimmed = key.trimmingCharacters(in: " \t")
        return Base64.encode(SHA1.hash(Array((trimmed + guid).utf8)))
    }

    /// What is wrong with an upgrade request, or nil when it is a valid one. `header` gives
    /// a field's value (comma-joined when repeated).
    package static func problem(method: String, header: (String) -> String?) -> String? {
        guard method == "GET" else { return "a WebSocket upgrade is a GET, not \(method)" }
        guard let upgrade = header("Upgrade"), listContains(upgrade, "websocket") else {
            return "the request has no \"Upgrade: websocket\""
        }
        guard let connection = header("Connection"), listContains(connection, "upgrade") else {
            return "the request has no \"Connection: Upgrade\""
        }
        guard header("Sec-WebSocket-Version")?.trimmingCharacters(in: " \t") == "13" else {
            return "Sec-WebSocket-Version must be 13"
        }
        guard let key = header("Sec-WebSocket-Key")?.trimmingCharacters(in: " \t"), isValidKey(key) else {
            return "Sec-WebSocket-Key must be 16 bytes in base64"
        }
        return nil
    }

    /// Whether the request asks for an upgrade to WebSocket at all (valid or not).
    package static func isUpgrade(header: (String) -> String?) -> Bool {
        header("Upgrade").map { listContains($0, "websocket") } ?? false
    }

    /// A comma-separated field value holds `token`, compared without case.
    static func listContains(_ value: String, _ token: String) -> Bool {
        value.split(separator: ",").contains { String($0).trimmingCharacters(in: " \t").lowercased() == token }
    }

    /// 16 bytes in base64: 22 characters and "==".
    static func isValidKey(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 24, bytes[22] == UInt8(ascii: "="), bytes[23] == UInt8(ascii: "=") else { return false }
        return bytes[0..<22].allSatisfy { Base64.alphabet.contains($0) }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
}

extension String {
    /// Without Foundation: leading and trailing characters from `set` removed.
    fileprivate func trimmingCharacters(in set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        var view = Substring(self).unicodeScalars
        while let first = view.first, scalars.contains(first) {
            view.removeFirst()
        }
        while let last = view.last, scalars.contains(last) {
            view.removeLast()
        }
        return String(view)
    }
}
