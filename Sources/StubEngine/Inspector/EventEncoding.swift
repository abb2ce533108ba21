import HTTP1

/// The bytes of `GET /__admin/events` (server-sent events, WHATWG HTML §9.2): one event per
/// journal entry with the entry's id as the event id, so a reconnecting page's `Last-Event-ID`
/// says exactly what it has. An entry's event is its summary (what the list shows); the page
/// fetches the whole entry (`GET /__admin/requests/{id}`) when it is opened.
enum EventEncoding {
    /// `id: 12` / `data: {"id":12,...}`: written straight to bytes, with no JSON tree, because
    /// a busy server encodes thousands a second for each open page.
    static func append(_ entry: JournalEntry, to out: inout [UInt8]) {
        out.append(contentsOf: "id: \(entry.id)\ndata: {\"id\":\(entry.id),\"receivedAt\":".utf8)
        JSONSerializer.writeString(DateFormats.rfc3339(epochMilliseconds: entry.receivedAtMilliseconds, withMilliseconds: true), into: &out)
        out.append(contentsOf: ",\"method\":".utf8)
        JSONSerializer.writeString(entry.method, into: &out)
        out.append(contentsOf: ",\"path\":".utf8)
        JSONSerializer.writeString(entry.path, into: &out)
        out.append(contentsOf: ",\"target\":".utf8)
        JSONSerializer.writeString(entry.target, into: &out)
        out.append(contentsOf: ",\"status\":\(entry.status),\"stub\":".utf8)
        if let id = entry.stubID {
            out.append(contentsOf: "{\"id\":".utf8)
            JSONSerializer.writeString(id, into: &out)
            out.append(contentsOf: ",\"name\":".utf8)
            JSONSerializer.writeString(entry.stubName ?? "", into: &out)
            out.append(UInt8(ascii: "}"))
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(contentsOf: ",\"durationMs\":\(milliseconds(entry.durationMilliseconds))".utf8)
        if let response = entry.response {
            if response.delayMilliseconds > 0 { out.append(contentsOf: ",\"delayMs\":\(response.delayMilliseconds)".utf8) }
            if let fault = response.fault { out.append(contentsOf: ",\"fault\":\"\(fault)\"".utf8) }
        }
        out.append(contentsOf: "}\n\n".utf8)
    }

    /// A named event without an id (the page's `Last-Event-ID` stays the last entry's).
    static func append(event name: String, data: String, to out: inout [UInt8]) {
        out.append(contentsOf: "event: \(name)\ndata: \(data)\n\n".utf8)
    }

    /// A comment line: keeps proxies and browsers from closing a quiet stream.
    static let heartbeat = Array(": keep-alive\n\n".utf8)

    /// Three decimals, as in the journal's JSON, without Foundation's formatter.
    static func milliseconds(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        var text = String(rounded)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}
