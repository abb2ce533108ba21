/// Counters from one match call; the tests and the fuzz target check the linear bound on them.
package struct RegexRunStats: Sendable {
    /// Instruction visits plus thread steps: at most 4 × (scalars + 1) × (stateCount + 1).
    package var steps = 0
    package init() {}
}

/// The Pike VM: all threads advance together, one scalar at a time, in priority order, so the
/// first thread to match is the match a backtracking engine (ICU) would find, and the cost is
/// O(text × program) whatever the pattern.
///
/// Each position's threads are found by a depth-first walk of the non-consuming instructions
/// that visits each state at most once per position. A state is an instruction plus, inside
/// loops whose body can match empty, k: how many of the innermost such loops began their
/// current iteration at this very position (always a suffix of the enclosing loops, so one
/// number says which). `iterEnd` with k > 0 means the iteration consumed nothing, and leaves
/// the loop as ICU does. After a scalar is consumed k is 0, so threads waiting for the next
/// scalar are keyed by instruction alone: one per consuming instruction.
struct PikeVM {
    enum Mode { case whole, first }

    private struct Frame {
        /// >= 0: explore this instruction with `k`; < 0: restore slot -1 - pc to `value`.
        var pc: Int32
        var k: Int32
        var value: Int
    }

    /// Threads waiting at a position, in priority order, with their capture slots.
    private struct ThreadList {
        var pcs: [Int32] = []
        var slots: [Int] = []
        mutating func clear() { pcs.removeAll(keepingCapacity: true); slots.removeAll(keepingCapacity: true) }
    }

    private let program: RegexProgram
    private let text: UnsafeBufferPointer<UInt8>
    private let mode: Mode
    private let slotCount: Int
    private var visited: [UInt32]
    private var generation: UInt32 = 1
    private var stack: [Frame] = []
    private var scratch: [Int]
    private var wordBefore = false
    private(set) var steps = 0

    init(_ program: RegexProgram, text: UnsafeBufferPointer<UInt8>, mode: Mode, captures: Bool) {
        self.program = program
        self.text = text
        self.mode = mode
        slotCount = captures ? 2 * (program.captureGroupCount + 1) : 0
        visited = [UInt32](repeating: 0, count: program.stateCount)
        scratch = [Int](repeating: -1, count: slotCount)
        stack.reserveCapacity(16)
    }

    /// Runs to the end or the first match. `whole`: whether the text matches from start to
    /// end (the result is [] then). `first`: the leftmost-first match's slots (2 per group,
    /// group 0 first; -1 when unset). `skipTo` is a byte every match starts with, if known.
    mutating func run(skipTo firstByte: UInt8? = nil) -> [Int]? {
        let end = text.count
        var current = ThreadList(), next = ThreadList()
        var found: [Int]? = nil
        var pos = 0
        while true {
            if found == nil, pos == 0 || mode == .first {
                if current.pcs.isEmpty, let firstByte {
                    // Nothing alive: jump to the next place a match can start.
                    var j = pos
                    while j < end, text[j] != firstByte { j += 1 }
                    if j == end { break }
                    if program.hasWordAssertions { advanceWordState(from: pos, to: j) }
                    pos = j
                }
                for i in 0..<slotCount { scratch[i] = -1 }
                addThread(&current, program.start, k: 0, at: pos)
            }
            if current.pcs.isEmpty, mode == .whole || found != nil || pos >= end { break }
            if pos >= end {
                // Only a match can be left to find.
                for (i, pc) in current.pcs.enumerated() where program.instructions[Int(pc)].op == .match {
                    if mode == .whole { return [] }
                    found = Array(current.slots[(i * slotCount)..<((i + 1) * slotCount)])
                    break
                }
                break
            }
            let (c, length) = decode(at: pos)
            let after = pos + length
            if program.hasWordAssertions, !Self.isWordSkip(c) { wordBefore = Self.isWord(c) }
            nextGeneration()
            next.clear()
            for (i, pc) in current.pcs.enumerated() {
                steps += 1
                let inst = program.instructions[Int(pc)]
                var target: Int32 = -1
                switch inst.op {
                case .match:
                    if mode == .whole { continue } // not at the end: not a whole match
                    found = Array(current.slots[(i * slotCount)..<((i + 1) * slotCount)])
                case .scalar:
                    if c == UInt32(bitPattern: inst.arg) { target = inst.next }
                case .set:
                    if program.classes[Int(inst.arg)].contains(c) { target = inst.next }
                case .anyButNewline:
                    if !NamedSet.isLineTerminator(c) { target = inst.next }
                case .anyDotAll:
                    target = c == 0x0D && after < end && text[after] == 0x0A ? inst.alt : inst.next
                case .lineBreak:
                    if c == 0x0D && after < end && text[after] == 0x0A { target = inst.alt } else if NamedSet.isLineTerminator(c) { target = inst.next }
                case .foldStep:
                    let step = program.foldSteps[Int(inst.arg)]
                    let advance = step.advance(c)
                    if advance > 0 { target = step.position + advance == step.length ? inst.next : pc + advance }
                default:
                    break // non-consuming instructions never wait in a list
                }
                if inst.op == .match { break } // lower-priority threads lose to this match
                if target >= 0 {
                    for s in 0..<slotCount { scratch[s] = current.slots[i * slotCount + s] }
                    addThread(&next, target, k: 0, at: after)
                }
            }
            swap(&current, &next)
            pos = after
        }
        return mode == .whole ? nil : found
    }

    private mutating func nextGeneration() {
        generation &+= 1
        if generation == 0 {
            for i in visited.indices { visited[i] = 0 }
            generation = 1
        }
    }

    /// Follows the non-consuming instructions from `pc` depth-first, preferred branch first,
    /// appending the consuming and match instructions reached to `list` in that order.
    private mutating func addThread(_ list: inout ThreadList, _ pc: Int32, k: Int32, at pos: Int) {
        stack.append(Frame(pc: pc, k: k, value: 0))
        while let frame = stack.popLast() {
            if frame.pc < 0 {
                scratch[Int(-1 - frame.pc)] = frame.value
                continue
            }
            var pc = frame.pc, k = frame.k
            explore: while true {
                steps += 1
                let inst = program.instructions[Int(pc)]
                let state = Int(program.stateBase[Int(pc)]) + (inst.consumes || inst.op == .match ? 0 : Int(k))
                if visited[state] == generation { break explore }
                visited[state] = generation
                switch inst.op {
                case .jump:
                    pc = inst.next
                case .split:
                    stack.append(Frame(pc: inst.alt, k: k, value: 0))
                    pc = inst.next
                case .save:
                    let slot = Int(inst.arg)
                    if slot < slotCount {
                        stack.append(Frame(pc: -1 - inst.arg, k: 0, value: scratch[slot]))
                        scratch[slot] = pos
                    }
                    pc = inst.next
                case .assert:
                    guard let a = Assertion(rawValue: inst.arg), holds(a, at: pos) else { break explore }
                    pc = inst.next
                case .iterStart:
                    k += 1
                    pc = inst.next
                case .iterEnd:
                    if k > 0 {
                        // This iteration consumed nothing: leave the loop.
                        k -= 1
                        pc = inst.alt
                    } else if inst.arg == 1 {
                        stack.append(Frame(pc: inst.alt, k: 0, value: 0))
                        pc = inst.next
                    } else {
                        stack.append(Frame(pc: inst.next, k: 0, value: 0))
                        pc = inst.alt
                    }
                default:
                    list.pcs.append(pc)
                    list.slots.append(contentsOf: scratch)
                    break explore
                }
            }
        }
    }

    // MARK: - text

    /// The scalar starting at byte `i` of valid UTF-8, and its length.
    @inline(__always)
    private func decode(at i: Int) -> (UInt32, Int) {
        let b0 = UInt32(text[i])
        if b0 < 0x80 { return (b0, 1) }
        if b0 < 0xE0 { return ((b0 & 0x1F) << 6 | UInt32(text[i + 1] & 0x3F), 2) }
        if b0 < 0xF0 { return ((b0 & 0x0F) << 12 | UInt32(text[i + 1] & 0x3F) << 6 | UInt32(text[i + 2] & 0x3F), 3) }
        return ((b0 & 0x07) << 18 | UInt32(text[i + 1] & 0x3F) << 12 | UInt32(text[i + 2] & 0x3F) << 6 | UInt32(text[i + 3] & 0x3F), 4)
    }

    private func scalar(before i: Int) -> UInt32 {
        var j = i - 1
        while j > 0, text[j] & 0xC0 == 0x80 { j -= 1 }
        return decode(at: j).0
    }

    private mutating func advanceWordState(from start: Int, to end: Int) {
        var i = start
        while i < end {
            let (c, length) = decode(at: i)
            if !Self.isWordSkip(c) { wordBefore = Self.isWord(c) }
            i += length
        }
    }

    /// ICU's assertions; see `Assertion`.
    private func holds(_ a: Assertion, at i: Int) -> Bool {
        let end = text.count
        switch a {
        case .startOfText:
            return i == 0
        case .endOfText:
            return i == end
        case .startOfLine:
            // ICU: also between CR and LF, and never at the very end.
            return i == 0 || (i < end && NamedSet.isLineTerminator(scalar(before: i)))
        case .endOfTextOrFinalTerminator:
            if i == end { return true }
            let (c, length) = decode(at: i)
            if i + length == end {
                return NamedSet.isLineTerminator(c) && !(c == 0x0A && i > 0 && text[i - 1] == 0x0D)
            }
            return c == 0x0D && i + 2 == end && text[i + 1] == 0x0A
        case .endOfLine:
            if i == end { return true }
            let c = decode(at: i).0
            return NamedSet.isLineTerminator(c) && !(c == 0x0A && i > 0 && text[i - 1] == 0x0D)
        case .wordBoundary, .notWordBoundary:
            var isWord = false
            if i < end {
                let c = decode(at: i).0
                // Never a boundary before a combining mark or format character.
                if Self.isWordSkip(c) { return a == .notWordBoundary }
                isWord = Self.isWord(c)
            }
            return (isWord != wordBefore) == (a == .wordBoundary)
        }
    }

    /// ICU's word characters for \b: [\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\u200C\u200D].
    @inline(__always)
    static func isWord(_ c: UInt32) -> Bool {
        if c < 0x80 {
            return (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x5F
        }
        guard let s = Unicode.Scalar(c) else { return false }
        return NamedSet.word.contains(s)
    }

    /// Characters \b looks through: Grapheme_Extend and format characters.
    @inline(__always)
    static func isWordSkip(_ c: UInt32) -> Bool {
        if c < 0x80 { return false }
        guard let s = Unicode.Scalar(c) else { return false }
        return s.properties.isGraphemeExtend || s.properties.generalCategory == .format
    }
}
