import SystemSupport

/// Buckets of numbers by a literal string of the request, looked up with every request: the
/// catalog's stubs by the whole path (stubs whose path is all literal) or by its first segment
/// (those whose path starts with a literal one), each bucket in rank order; the OpenAPI
/// contract's routes by their literal paths.
///
/// By the string's bytes (FNV-1a, `ByteHash`; open addressing, at most half full) where that
/// gives `String`'s answer, which compares by canonical equivalence: two ASCII strings are
/// equal exactly when their bytes are, but a string that is not ASCII may equal an ASCII one
/// ("/\u{212A}", the Kelvin sign, is "/K"). So the bytes answer for an ASCII key while every
/// bucket's key is ASCII; otherwise the `String`-keyed dictionary does. Hashing a path as a
/// `String` (SipHash) cost some 340 instructions per request.
///
/// A class whose lookup reads memory it allocates itself: Swift arrays held in a class's
/// variables were each retained and released around every use, on every request.
package final class LiteralIndex: @unchecked Sendable {
    // @unchecked: changed only while one catalog owns it, before any request sees it (a shared
    // catalog copies it first, `copy()`), as the catalog's own storage; so no read can overlap a
    // change, and the run-time exclusivity checks (three per lookup, 190 instructions) are off.

    /// Stub indices by bucket number.
    @exclusivity(unchecked) private var buckets = Buffer<[Int]>()
    /// Bucket numbers by key, as `String` compares them: the authority.
    @exclusivity(unchecked) private var byKey: [String: Int] = [:]
    /// The ASCII keys end to end, and where each is, with its bucket.
    @exclusivity(unchecked) private var keyBytes = Buffer<UInt8>()
    @exclusivity(unchecked) private var entries = Buffer<Entry>()
    /// Entry numbers + 1 by the hash of their bytes; 0 is an empty slot.
    @exclusivity(unchecked) private var slots = Buffer<Int32>()
    /// Buckets whose key is not ASCII: while there are any, the bytes are not asked.
    @exclusivity(unchecked) private var otherKeys = 0

    private struct Entry {
        let start: Int
        let count: Int
        let bucket: Int
    }

    package init() {}

    deinit {
        buckets.free()
        keyBytes.free()
        entries.free()
        slots.free()
    }

    func copy() -> LiteralIndex {
        let copy = LiteralIndex()
        copy.buckets = buckets.copy()
        copy.byKey = byKey
        copy.keyBytes = keyBytes.copy()
        copy.entries = entries.copy()
        copy.slots = slots.copy()
        copy.otherKeys = otherKeys
        return copy
    }

    var isEmpty: Bool { buckets.count == 0 }

    /// The bucket of `key`, if it has one.
    package func bucket(_ key: String) -> [Int]? {
        guard buckets.count > 0 else { return nil }
        if otherKeys == 0, let found = key.utf8.withContiguousStorageIfAvailable(lookUp) {
            switch found {
            case .bucket(let number): return buckets[number]
            case .none: return nil
            case .notASCII: break
            }
        }
        return byKey[key].map { buckets[$0] }
    }

    private enum Found {
        case bucket(Int)
        case none
        /// The key is not ASCII: only `byKey` can say.
        case notASCII
    }

    private func lookUp(_ bytes: UnsafeBufferPointer<UInt8>) -> Found {
        guard slots.count > 0 else { return Self.isASCII(bytes) ? .none : .notASCII }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: ByteHash.fnv1a(bytes)) & mask
        while true {
            let number = Int(slots[slot])
            guard number != 0 else { return Self.isASCII(bytes) ? .none : .notASCII }
            let entry = entries[number - 1]
            if entry.count == bytes.count, keyBytes.equals(bytes, at: entry.start) { return .bucket(entry.bucket) }
            slot = (slot + 1) & mask
        }
    }

    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte >= 0x80 { return false }
        return true
    }

    /// Adds stub `index` at the end of `key`'s bucket.
    package func append(_ index: Int, at key: String) {
        let number = bucketNumber(creating: key)
        buckets[number].append(index)
    }

    /// Changes `key`'s bucket (made if there is none) in place.
    func modifyBucket(_ key: String, _ change: (inout [Int]) -> Void) {
        let number = bucketNumber(creating: key)
        change(&buckets[number])
    }

    func sortBuckets(by areInIncreasingOrder: (Int, Int) -> Bool) {
        for number in 0..<buckets.count { buckets[number].sort(by: areInIncreasingOrder) }
    }

    private func bucketNumber(creating key: String) -> Int {
        if let number = byKey[key] { return number }
        let number = buckets.count
        buckets.append([])
        byKey[key] = number
        guard key.utf8.allSatisfy({ $0 < 0x80 }) else {
            otherKeys += 1
            return number
        }
        let start = keyBytes.count
        for byte in key.utf8 { keyBytes.append(byte) }
        entries.append(Entry(start: start, count: keyBytes.count - start, bucket: number))
        if 2 * entries.count > slots.count {
            var size = max(8, slots.count)
            while 2 * entries.count > size { size <<= 1 }
            slots.free()
            slots = Buffer(repeating: 0, count: size)
            for entry in 0..<entries.count { place(entry) }
        } else {
            place(entries.count - 1)
        }
        return number
    }

    private func place(_ number: Int) {
        let entry = entries[number]
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: ByteHash.fnv1a(keyBytes.slice(entry.start, entry.count))) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(number + 1)
    }
}

/// Elements in memory allocated and freed by hand (`free`): reading one costs no reference
/// count. Its owner frees it, and copies it (`copy`) to share nothing.
private struct Buffer<Element> {
    private var base: UnsafeMutablePointer<Element>?
    private(set) var count = 0
    private var capacity = 0

    init() {}

    init(repeating element: Element, count: Int) {
        let base = UnsafeMutablePointer<Element>.allocate(capacity: count)
        base.initialize(repeating: element, count: count)
        self.base = base
        self.count = count
        capacity = count
    }

    subscript(index: Int) -> Element {
        get { base![index] }
        nonmutating _modify { yield &base![index] }
    }

    mutating func append(_ element: Element) {
        if count == capacity {
            let grown = UnsafeMutablePointer<Element>.allocate(capacity: max(8, 2 * capacity))
            if let base {
                grown.moveInitialize(from: base, count: count)
                base.deallocate()
            }
            base = grown
            capacity = max(8, 2 * capacity)
        }
        (base! + count).initialize(to: element)
        count += 1
    }

    func copy() -> Buffer {
        var copy = Buffer()
        guard let base, count > 0 else { return copy }
        let copied = UnsafeMutablePointer<Element>.allocate(capacity: count)
        copied.initialize(from: base, count: count)
        copy.base = copied
        copy.count = count
        copy.capacity = count
        return copy
    }

    func free() {
        base?.deinitialize(count: count)
        base?.deallocate()
    }
}

extension Buffer where Element == UInt8 {
    func slice(_ start: Int, _ count: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base.map { $0 + start }, count: count)
    }

    /// Eight bytes at a time, then byte for byte: the generic `elementsEqual` cost 70
    /// instructions for ten bytes, a plain loop over bytes half that.
    func equals(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        guard let base, let other = bytes.baseAddress else { return bytes.isEmpty }
        let stored = UnsafeRawPointer(base + start)
        let given = UnsafeRawPointer(other)
        var offset = 0
        while offset &+ 8 <= bytes.count {
            let a = stored.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            guard a == given.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
            offset &+= 8
        }
        while offset < bytes.count {
            guard stored.load(fromByteOffset: offset, as: UInt8.self) == other[offset] else { return false }
            offset &+= 1
        }
        return true
    }
}
