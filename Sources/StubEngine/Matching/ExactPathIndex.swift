import SystemSupport

/// The catalog's exact-path buckets: the stubs whose path is all literal, by that path, each
/// bucket in rank order. Looked up with every request's path.
///
/// By the path's bytes (FNV-1a, `ByteHash`; open addressing, at most half full) where that
/// gives `String`'s answer, which compares by canonical equivalence: two ASCII strings are
/// equal exactly when their bytes are, but a path that is not ASCII may equal an ASCII one
/// ("/\u{212A}", the Kelvin sign, is "/K"). So the bytes answer for an ASCII request path while
/// every bucket's path is ASCII; otherwise the `String`-keyed dictionary does. Hashing the
/// path as a `String` (SipHash) cost some 340 instructions per request.
///
/// A class whose lookup reads memory it allocates itself: Swift arrays held in a class's
/// variables were each retained and released around every use, on every request.
final class ExactPathIndex: @unchecked Sendable {
    // @unchecked: changed only while one catalog owns it, before any request sees it (a shared
    // catalog copies it first, `copy()`), as the catalog's own storage; so no read can overlap a
    // change, and the run-time exclusivity checks (three per lookup, 190 instructions) are off.

    /// Stub indices by bucket number.
    @exclusivity(unchecked) private var buckets = Buffer<[Int]>()
    /// Bucket numbers by path, as `String` compares them: the authority.
    @exclusivity(unchecked) private var byPath: [String: Int] = [:]
    /// The ASCII paths end to end, and where each is, with its bucket.
    @exclusivity(unchecked) private var keyBytes = Buffer<UInt8>()
    @exclusivity(unchecked) private var keys = Buffer<Key>()
    /// Key numbers + 1 by the hash of their bytes; 0 is an empty slot.
    @exclusivity(unchecked) private var slots = Buffer<Int32>()
    /// Buckets whose path is not ASCII: while there are any, the bytes are not asked.
    @exclusivity(unchecked) private var otherPaths = 0

    private struct Key {
        let start: Int
        let count: Int
        let bucket: Int
    }

    init() {}

    deinit {
        buckets.free()
        keyBytes.free()
        keys.free()
        slots.free()
    }

    func copy() -> ExactPathIndex {
        let copy = ExactPathIndex()
        copy.buckets = buckets.copy()
        copy.byPath = byPath
        copy.keyBytes = keyBytes.copy()
        copy.keys = keys.copy()
        copy.slots = slots.copy()
        copy.otherPaths = otherPaths
        return copy
    }

    /// The stubs whose literal path is `path`, if any.
    func bucket(_ path: String) -> [Int]? {
        guard buckets.count > 0 else { return nil }
        if otherPaths == 0, let found = path.utf8.withContiguousStorageIfAvailable(lookUp) {
            switch found {
            case .bucket(let number): return buckets[number]
            case .none: return nil
            case .notASCII: break
            }
        }
        return byPath[path].map { buckets[$0] }
    }

    private enum Found {
        case bucket(Int)
        case none
        /// The path is not ASCII: only `byPath` can say.
        case notASCII
    }

    private func lookUp(_ path: UnsafeBufferPointer<UInt8>) -> Found {
        guard slots.count > 0 else { return Self.isASCII(path) ? .none : .notASCII }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: ByteHash.fnv1a(path)) & mask
        while true {
            let number = Int(slots[slot])
            guard number != 0 else { return Self.isASCII(path) ? .none : .notASCII }
            let key = keys[number - 1]
            if key.count == path.count, keyBytes.equals(path, at: key.start) { return .bucket(key.bucket) }
            slot = (slot + 1) & mask
        }
    }

    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte >= 0x80 { return false }
        return true
    }

    /// Adds stub `index` at the end of `path`'s bucket.
    func append(_ index: Int, at path: String) {
        let number = bucketNumber(creating: path)
        buckets[number].append(index)
    }

    /// Changes `path`'s bucket (made if there is none) in place.
    func modifyBucket(_ path: String, _ change: (inout [Int]) -> Void) {
        let number = bucketNumber(creating: path)
        change(&buckets[number])
    }

    func sortBuckets(by areInIncreasingOrder: (Int, Int) -> Bool) {
        for number in 0..<buckets.count { buckets[number].sort(by: areInIncreasingOrder) }
    }

    private func bucketNumber(creating path: String) -> Int {
        if let number = byPath[path] { return number }
        let number = buckets.count
        buckets.append([])
        byPath[path] = number
        guard path.utf8.allSatisfy({ $0 < 0x80 }) else {
            otherPaths += 1
            return number
        }
        let start = keyBytes.count
        for byte in path.utf8 { keyBytes.append(byte) }
        keys.append(Key(start: start, count: keyBytes.count - start, bucket: number))
        if 2 * keys.count > slots.count {
            var size = max(8, slots.count)
            while 2 * keys.count > size { size <<= 1 }
            slots.free()
            slots = Buffer(repeating: 0, count: size)
            for key in 0..<keys.count { place(key) }
        } else {
            place(keys.count - 1)
        }
        return number
    }

    private func place(_ number: Int) {
        let key = keys[number]
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: ByteHash.fnv1a(keyBytes.slice(key.start, key.count))) & mask
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
