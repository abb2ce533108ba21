import HTTP1
import JSON
import StubEngine

/// The bytes of `GET /__admin/events` (server-sent events, WHATWG HTML §9.2): one event per
/// journal entry with the entry's id as the event id, so a reconnecting page's `Last-Event-ID`
/// says exactly what it has. An entry's event is its summary (what the list shows); the page
/// fetches the whole entry (`GET /__admin/requests/{id}`) when it is opened.
///
/// Written straight to bytes, with no JSON tree and no string per number, because a busy server
/// encodes tens of thousands a second for each open page. One encoder serves one batch: entries
/// of a batch mostly share their second, so the date's first 19 characters are made once.
struct EventEncoder {
    private var second = Int.min
    private var secondText: [UInt8] = []

    /// `id: 12` / `data: {"id":12,...}` and the blank line that ends the event.
    mutating func append(_ entry: JournalEntry, to out: inout [UInt8]) {
        out.append(contentsOf: "id: ".utf8)
        out.appendDecimal(entry.id)
        out.append(contentsOf: "\ndata: {\"id\":".utf8)
        out.appendDecimal(entry.id)
        out.append(contentsOf: ",\"receivedAt\":\"".utf8)
        appendDate(entry.receivedAtMilliseconds, to: &out)
        // The request line read once from the bytes the journal keeps; a row needs no field.
        let line = entry.requestLine
        out.append(contentsOf: "\",\"method\":".utf8)
        JSONSerializer.writeString(line.method, into: &out)
        out.append(contentsOf: ",\"path\":".utf8)
        JSONSerializer.writeString(line.path, into: &out)
        out.append(contentsOf: ",\"target\":".utf8)
        JSONSerializer.writeString(line.target, into: &out)
        out.append(contentsOf: ",\"status\":".utf8)
        if let status = entry.status { out.appendDecimal(status) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: ",\"stub\":".utf8)
        if let id = entry.stubID {
            out.append(contentsOf: "{\"id\":".utf8)
            JSONSerializer.writeString(id, into: &out)
            out.append(contentsOf: ",\"name\":".utf8)
            JSONSerializer.writeString(entry.stubName ?? "", into: &out)
            out.append(UInt8(ascii: "}"))
        } else {
            out.append(contentsOf: "null".utf8)
        }
        if let proxy = entry.proxy {
            let result = proxy.result
            out.append(contentsOf: ",\"proxy\":{\"upstream\":".utf8)
            JSONSerializer.writeString(proxy.upstream, into: &out)
            if let status = result.status {
                out.append(contentsOf: ",\"status\":".utf8)
                out.appendDecimal(status)
            }
            if let error = result.error {
                out.append(contentsOf: ",\"error\":".utf8)
                JSONSerializer.writeString(error, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        if let tunnel = entry.tunnel {
            // What the row says of a CONNECT; its totals are in the detail (`GET requests/ID`).
            out.append(contentsOf: ",\"tunnel\":{\"host\":".utf8)
            JSONSerializer.writeString(tunnel.host, into: &out)
            out.append(contentsOf: ",\"port\":".utf8)
            out.appendDecimal(tunnel.port)
            out.append(contentsOf: ",\"mode\":".utf8)
            JSONSerializer.writeString(tunnel.mode.rawValue, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        if let authority = entry.tunnelAuthority {
            out.append(contentsOf: ",\"via\":".utf8)
            JSONSerializer.writeString("https://" + authority, into: &out)
        }
        if let refusal = entry.refusal {
            out.append(contentsOf: ",\"refused\":".utf8)
            JSONSerializer.writeString(refusal, into: &out)
        }
        if !entry.regexAborts.isEmpty {
            // How many regex matches gave up: the row says so; the detail fetches which.
            out.append(contentsOf: ",\"regexAborted\":".utf8)
            out.appendDecimal(entry.regexAborts.count)
        }
        if let contract = entry.contract, !contract.isClean || !contract.answerViolations.isEmpty {
            // How many rules of the OpenAPI document the exchange broke: the row says so.
            out.append(contentsOf: ",\"contract\":".utf8)
            out.appendDecimal(contract.violations.count + contract.answerViolations.count)
        }
        out.append(contentsOf: ",\"durationMs\":".utf8)
        Self.appendMilliseconds(entry.durationMilliseconds, to: &out)
        if let stream = entry.response?.stream {
            out.append(contentsOf: ",\"stream\":".utf8)
            Self.append(stream.summary, to: &out)
        }
        if let response = entry.response {
            if response.delayMilliseconds > 0 {
                out.append(contentsOf: ",\"delayMs\":".utf8)
                out.appendDecimal(response.delayMilliseconds)
            }
            if let fault = response.fault {
                out.append(contentsOf: ",\"fault\":".utf8)
                JSONSerializer.writeString(fault, into: &out)
            }
        }
        out.append(contentsOf: "}\n\n".utf8)
    }

    /// A named event without an id (the page's `Last-Event-ID` stays the last entry's).
    static func append(event name: String, data: String, to out: inout [UInt8]) {
        out.append(contentsOf: "event: \(name)\ndata: \(data)\n\n".utf8)
    }

    /// `event: stream` for an entry whose stream changed (an event sent, a message either way, its
    /// end): `{"id":12,"stream":{...}}`, no event id. The page fetches the entry for the items.
    static func append(streamOf entryID: Int, _ summary: StreamTranscript.Summary, to out: inout [UInt8]) {
        out.append(contentsOf: "event: stream\ndata: {\"id\":".utf8)
        out.appendDecimal(entryID)
        out.append(contentsOf: ",\"stream\":".utf8)
        append(summary, to: &out)
        out.append(contentsOf: "}\n\n".utf8)
    }

    /// `{"kind":"websocket","count":12,"ended":null}`: `count` is every item so far, kept or not.
    private static func append(_ summary: StreamTranscript.Summary, to out: inout [UInt8]) {
        out.append(contentsOf: "{\"kind\":\"\(summary.kind.rawValue)\",\"count\":".utf8)
        out.appendDecimal(summary.count)
        out.append(contentsOf: ",\"ended\":".utf8)
        if let ended = summary.ended {
            JSONSerializer.writeString(ended, into: &out)
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A comment line: keeps proxies and browsers from closing a quiet stream.
    static let heartbeat = Array(": keep-alive\n\n".utf8)

    /// RFC 3339 with milliseconds in UTC, as in the journal's JSON.
    private mutating func appendDate(_ epochMilliseconds: Int, to out: inout [UInt8]) {
        let millisecond = ((epochMilliseconds % 1000) + 1000) % 1000
        let second = (epochMilliseconds - millisecond) / 1000
        if second != self.second {
            self.second = second
            secondText = Array(
                DateFormats.rfc3339(epochMilliseconds: second * 1000, withMilliseconds: false).utf8.dropLast()
            )
        }
        out.append(contentsOf: secondText)
        out += [
            UInt8(ascii: "."), digit(millisecond / 100), digit(millisecond / 10 % 10), digit(millisecond % 10),
            UInt8(ascii: "Z"),
        ]
    }

    /// Three decimals at most, trailing zeros dropped (`0.125`, `2.5`, `3`), as in the journal.
    static func appendMilliseconds(_ value: Double, to out: inout [UInt8]) {
        guard value.isFinite, value >= 0, value < 1e12 else {
            out.append(UInt8(ascii: "0"))
            return
        }
        let thousandths = Int((value * 1000).rounded())
        out.appendDecimal(thousandths / 1000)
        var fraction = thousandths % 1000
        guard fraction > 0 else { return }
        var digits = 3
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        out.append(UInt8(ascii: "."))
        let text = [fraction / 100, fraction / 10 % 10, fraction % 10].suffix(digits)
        for d in text { out.append(digit(d)) }
    }
}

private func digit(_ value: Int) -> UInt8 { UInt8(ascii: "0") + UInt8(value) }
