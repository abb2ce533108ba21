import Foundation

/// One server-sent event as a client parses it (WHATWG HTML §9.2.6), or a comment line.
public struct ServerSentEvent: Equatable {
    public var id: String?
    /// `message` unless the event names itself.
    public var event = "message"
    public var data = ""
    /// A comment line (`: keep-alive`), which carries no event.
    public var comment: String?

    public var numericID: Int? { id.flatMap { Int($0) } }
}

/// A raw-socket event-stream client: sends a GET, reads the response head, takes the chunked
/// body apart and parses events as they arrive. Every wait has a deadline, never a sleep.
public final class EventStreamReader {
    public let connection: WireConnection
    public private(set) var head: WireResponse?
    public private(set) var events: [ServerSentEvent] = []
    /// The body ended properly (the last chunk arrived).
    public private(set) var ended = false
    private var raw: [UInt8] = []
    private var text: [UInt8] = []

    public init(port: Int, target: String, headers: [String] = [], receiveBuffer: Int32? = nil) throws {
        connection = try WireConnection(port: port, receiveBuffer: receiveBuffer)
        connection.send(
            "GET \(target) HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
                + headers.map { $0 + "\r\n" }.joined() + "\r\n"
        )
    }

    /// Entry events (those with an id), in arrival order.
    public var entryIDs: [Int] { events.compactMap(\.numericID) }

    public func named(_ name: String) -> [ServerSentEvent] { events.filter { $0.event == name && $0.comment == nil } }

    /// Reads until `condition` holds or the deadline passes; true if it held.
    @discardableResult
    public func wait(timeoutMilliseconds: Int = 5_000, until condition: (EventStreamReader) -> Bool) -> Bool {
        let deadline = WireConnection.now() + timeoutMilliseconds
        while !condition(self) {
            guard WireConnection.now() < deadline, !ended else { return condition(self) }
            let bytes = connection.readSome(max: 65_536, timeoutMilliseconds: 50)
            take(bytes)
        }
        return true
    }

    /// Everything until the server closes; true if it closed.
    public func readToClose(timeoutMilliseconds: Int = 5_000) -> Bool {
        let (bytes, closed) = connection.readUntilClose(timeoutMilliseconds: timeoutMilliseconds)
        take(bytes)
        return closed
    }

    public func close() { connection.close() }

    private func take(_ bytes: [UInt8]) {
        raw += bytes
        if head == nil {
            guard let end = WireConnection.find([13, 10, 13, 10], in: raw) else { return }
            head = WireResponse(head: String(decoding: raw[0..<end], as: UTF8.self))
            raw.removeFirst(end + 4)
        }
        dechunk()
        parseEvents()
    }

    /// Chunked framing: `SIZE CRLF DATA CRLF`, ended by a zero-size chunk.
    private func dechunk() {
        while !ended, let lineEnd = WireConnection.find([13, 10], in: raw) {
            guard let size = Int(String(decoding: raw[0..<lineEnd], as: UTF8.self), radix: 16) else { return }
            if size == 0 {
                ended = true
                return
            }
            guard raw.count >= lineEnd + 2 + size + 2 else { return }
            text += raw[(lineEnd + 2)..<(lineEnd + 2 + size)]
            raw.removeFirst(lineEnd + 2 + size + 2)
        }
    }

    private func parseEvents() {
        while let blockEnd = WireConnection.find([10, 10], in: text) {
            let block = String(decoding: text[0..<blockEnd], as: UTF8.self)
            text.removeFirst(blockEnd + 2)
            var event = ServerSentEvent()
            var dataLines: [String] = []
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") {
                    event.comment = String(line.dropFirst()).trimmingCharacters(in: .whitespaces)
                    continue
                }
                let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                let field = String(parts[0])
                var value = parts.count > 1 ? String(parts[1]) : ""
                if value.hasPrefix(" ") { value.removeFirst() }
                switch field {
                case "id": event.id = value
                case "event": event.event = value
                case "data": dataLines.append(value)
                default: break
                }
            }
            event.data = dataLines.joined(separator: "\n")
            // `retry:` alone is no event.
            if event.comment != nil || !dataLines.isEmpty { events.append(event) }
        }
    }
}
