import Dispatch
import HTTP1
import JSON
import StubEngine
import SystemSupport

/// An admin answer that is a long list (the journal, the stubs), written as `{"KEY":[...]}` a
/// few items at a time as the client takes them: memory holds one batch, never the whole
/// document (a full journal of large entries once built 127 MB on an event loop's thread).
enum StreamedJSON {
    /// Items are encoded on a queue of their own, off the event loops, in batches of about
    /// 16 KiB, each written when the stream has room.
    static func list<Item: Sendable>(
        _ key: String,
        _ items: [Item],
        encode: @escaping @Sendable (Item) -> JSONNode
    ) -> OutgoingResponse {
        let stream = BodyStream()
        ListProducer(stream: stream, key: key, items: items, encode: encode).start()
        let head = PreparedResponse(
            status: 200,
            headers: HeaderFields([("Content-Type", "application/json")]),
            streamLength: nil
        )
        return OutgoingResponse(head, delivery: .stream(stream))
    }
}

private final class ListProducer<Item: Sendable>: Sendable {
    let stream: BodyStream
    let key: String
    let items: [Item]
    let encode: @Sendable (Item) -> JSONNode
    /// The next item to write; -1 before the opening bracket.
    private let next = Locked(-1)
    /// One at a time: a write that says "wait" and the drain that says "go on" may overlap.
    private let queue = DispatchQueue(label: "stubserver.admin.list", target: .global())

    init(stream: BodyStream, key: String, items: [Item], encode: @escaping @Sendable (Item) -> JSONNode) {
        self.stream = stream
        self.key = key
        self.items = items
        self.encode = encode
    }

    func start() {
        stream.onWritable { [self] in queue.async { self.produce() } }
    }

    private func produce() {
        while !stream.isCancelled {
            var index = next.value
            guard index <= items.count else { return }
            var batch: [UInt8] = []
            if index == -1 {
                batch += Array("{\(JSONSerializer.quoted(key)):[".utf8)
                index = 0
            }
            while index < items.count, batch.count < 16 * 1024 {
                if index > 0 { batch.append(UInt8(ascii: ",")) }
                JSONSerializer.write(encode(items[index]), into: &batch)
                index += 1
            }
            let done = index == items.count
            if done { batch += Array("]}".utf8) }
            next.value = done ? items.count + 1 : index
            let room = stream.write(batch)
            if done {
                stream.finish()
                return
            }
            if !room { return }  // onWritable brings us back
        }
    }
}
