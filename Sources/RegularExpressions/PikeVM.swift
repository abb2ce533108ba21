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

    /// Runs to the end or the first match. `whole`: whether the text matches from start to
    /// end (the result is [] then). `first`: the leftmost-first match's slots (2 per group,
    /// group 0 first; -1 when unset). `firstByte` is a byte every match starts with, if known.
    ///
    /// All working memory is one block taken here, sized from the program: the visited marks,
    /// two thread lists (at most one thread per consuming instruction, plus the match), their
    /// capture slots, and the walk's stack (at most one frame per state, plus the first).
    static func run(
        _ program: RegexProgram,
        text: UnsafeBufferPointer<UInt8>,
        mode: Mode,
        captures: Bool,
        firstByte: UInt8? = nil,
        steps: inout Int
    ) -> [Int]? {
        let slotCount = captures ? 2 * (program.captureGroupCount + 1) : 0
        let listCapacity = program.consumingCount + 1
        let stackCapacity = program.stateCount + 2
        let total = program.stateCount + 2 * listCapacity * (1 + slotCount) + 3 * stackCapacity + 2 * slotCount
        return program.instructions.withUnsafeBufferPointer { instructions in
            program.classes.withUnsafeBufferPointer { classes in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: total) { memory -> [Int]? in
                    guard let block = memory.baseAddress else { return nil }
                    block.initialize(repeating: 0, count: program.stateCount)  // visited marks
                    var vm = PikeVM(
                        program: program,
                        instructions: instructions,
                        classes: classes,
                        text: text,
                        mode: mode,
                        slotCount: slotCount,
                        block: block,
                        listCapacity: listCapacity
                    )
                    let result = vm.run(firstByte: firstByte)
                    steps += vm.steps
                    return result
                }
            }
        }
    }

    private let program: RegexProgram
    private let instructions: UnsafeBufferPointer<Instruction>
    private let classes: UnsafeBufferPointer<CharacterClass>
    private let text: UnsafeBufferPointer<UInt8>
    private let mode: Mode
    private let slotCount: Int
    /// Generation (position + 1) at which each state was last visited.
    private let visited: UnsafeMutablePointer<Int>
    /// The two thread lists: instructions and slots, `current` and `next` swap each step.
    private var currentPCs: UnsafeMutablePointer<Int>, nextPCs: UnsafeMutablePointer<Int>
    private var currentSlots: UnsafeMutablePointer<Int>, nextSlots: UnsafeMutablePointer<Int>
    private var currentCount = 0, nextCount = 0
    /// Frames of three: pc and k to explore, or (-1 - slot, 0, value) to restore a slot.
    private let stack: UnsafeMutablePointer<Int>
    private let scratch: UnsafeMutablePointer<Int>
    /// The best match so far (copied here, not allocated, however often it improves).
    private let foundSlots: UnsafeMutablePointer<Int>
    private var generation = 1
    private var wordBefore = false
    private(set) var steps = 0

    private init(
        program: RegexProgram,
        instructions: UnsafeBufferPointer<Instruction>,
        classes: UnsafeBufferPointer<CharacterClass>,
        text: UnsafeBufferPointer<UInt8>,
        mode: Mode,
        slotCount: Int,
        block: UnsafeMutablePointer<Int>,
        listCapacity: Int
    ) {
        self.program = program
        self.instructions = instructions
        self.classes = classes
        self.text = text
        self.mode = mode
        self.slotCount = slotCount
        visited = block
        currentPCs = block + program.stateCount
        nextPCs = currentPCs + listCapacity
        currentSlots = nextPCs + listCapacity
        nextSlots = currentSlots + listCapacity * slotCount
        stack = nextSlots + listCapacity * slotCount
        scratch = stack + 3 * (program.stateCount + 2)
        foundSlots = scratch + slotCount
    }

    private mutating func run(firstByte: UInt8?) -> [Int]? {
        let end = text.count
        let hasWordAssertions = program.hasWordAssertions
        var found = false
        var pos = 0
        while true {
            if !found, pos == 0 || mode == .first {
                if currentCount == 0, let firstByte {
                    // Nothing alive: jump to the next place a match can start.
                    var j = pos
                    while j < end, text[j] != firstByte { j += 1 }
                    if j == end { break }
                    if hasWordAssertions { advanceWordState(from: pos, to: j) }
                    pos = j
                }
                // ICU's search tries a pattern that starts with (?m)^ only at line starts, a CR LF
                // pair counting as one terminator, although the assertion holds between them.
                let betweenCRLF = pos > 0 && pos < end && text[pos - 1] == 0x0D && text[pos] == 0x0A
                if !(program.startsWithLineStart && betweenCRLF) {
                    for i in 0..<slotCount { scratch[i] = -1 }
                    addThread(toNext: false, Int(program.start), k: 0, at: pos)
                }
            }
            if currentCount == 0, mode == .whole || found || pos >= end { break }
            if pos >= end {
                // Only a match can be left to find.
                for i in 0..<currentCount where instructions[currentPCs[i]].isMatch {
                    if mode == .whole { return [] }
                    recordMatch(i)
                    found = true
                    break
                }
                break
            }
            let (c, length) = decode(at: pos)
            let after = pos + length
            if hasWordAssertions, !RegexText.isWordSkip(c) { wordBefore = RegexText.isWord(c) }
            generation += 1
            nextCount = 0
            for i in 0..<currentCount {
                steps += 1
                let pc = currentPCs[i]
                let inst = instructions[pc]
                var target = -1
                switch inst.op {
                case .match:
                    if mode == .whole { continue }  // not at the end: not a whole match
                    recordMatch(i)
                    found = true
                case .scalar:
                    if c == UInt32(bitPattern: inst.arg) { target = Int(inst.next) }
                case .set:
                    if classes[Int(inst.arg)].contains(c) { target = Int(inst.next) }
                case .anyButNewline:
                    if !NamedSet.isLineTerminator(c) { target = Int(inst.next) }
                case .anyDotAll:
                    target = Int(c == 0x0D && after < end && text[after] == 0x0A ? inst.alt : inst.next)
                case .lineBreak:
                    if c == 0x0D && after < end && text[after] == 0x0A {
                        target = Int(inst.alt)
                    } else if NamedSet.isLineTerminator(c) {
                        target = Int(inst.next)
                    }
                case .foldStep:
                    let step = program.foldSteps[Int(inst.arg)]
                    let advance = Int(step.advance(c))
                    if advance > 0 {
                        target = Int(step.position) + advance == Int(step.length) ? Int(inst.next) : pc + advance
                    }
                default:
                    break  // non-consuming instructions never wait in a list
                }
                if inst.isMatch { break }  // lower-priority threads lose to this match
                if target >= 0 {
                    for s in 0..<slotCount { scratch[s] = currentSlots[i * slotCount + s] }
                    addThread(toNext: true, target, k: 0, at: after)
                }
            }
            swap(&currentPCs, &nextPCs)
            swap(&currentSlots, &nextSlots)
            currentCount = nextCount
            pos = after
        }
        guard mode == .first, found else { return nil }
        return Array(UnsafeBufferPointer(start: foundSlots, count: slotCount))
    }

    private func recordMatch(_ thread: Int) {
        if slotCount > 0 { foundSlots.update(from: currentSlots + thread * slotCount, count: slotCount) }
    }

    /// Follows the non-consuming instructions from `pc` depth-first, preferred branch first,
    /// appending the consuming and match instructions reached to a list in that order.
    private mutating func addThread(toNext: Bool, _ pc: Int, k: Int, at pos: Int) {
        // The bounds below hold by construction (each state is visited once per position, each
        // visit pushes at most one frame and lists at most one thread; k never exceeds the loop
        // depth of the instruction): the guards only keep memory safe if that were ever wrong.
        let stackLimit = 3 * (program.stateCount + 2)
        let stateCount = program.stateCount
        let listCapacity = program.consumingCount + 1
        var sp = 0
        func push(_ a: Int, _ b: Int, _ c: Int) {
            guard sp + 3 <= stackLimit else { return }
            stack[sp] = a
            stack[sp + 1] = b
            stack[sp + 2] = c
            sp += 3
        }
        push(pc, k, 0)
        while sp > 0 {
            sp -= 3
            var pc = stack[sp]
            var k = stack[sp + 1]
            if pc < 0 {
                scratch[-1 - pc] = stack[sp + 2]
                continue
            }
            explore: while true {
                steps += 1
                let inst = instructions[pc]
                let state = Int(inst.stateBase) + Int(inst.stateStride) * k
                if state >= stateCount || visited[state] == generation { break explore }
                visited[state] = generation
                switch inst.op {
                case .jump:
                    pc = Int(inst.next)
                case .split:
                    push(Int(inst.alt), k, 0)
                    pc = Int(inst.next)
                case .save:
                    let slot = Int(inst.arg)
                    if slot < slotCount {
                        push(-1 - slot, 0, scratch[slot])
                        scratch[slot] = pos
                    }
                    pc = Int(inst.next)
                case .assert:
                    guard let a = Assertion(rawValue: inst.arg), holds(a, at: pos) else { break explore }
                    pc = Int(inst.next)
                case .iterStart:
                    k += 1
                    pc = Int(inst.next)
                case .iterEnd:
                    if k > 0 {
                        // This iteration consumed nothing: leave the loop.
                        k -= 1
                        pc = Int(inst.alt)
                    } else if inst.arg & 1 == 1 {
                        push(Int(inst.alt), 0, 0)
                        pc = Int(inst.next)
                    } else {
                        push(Int(inst.next), 0, 0)
                        pc = Int(inst.alt)
                    }
                default:
                    if (toNext ? nextCount : currentCount) >= listCapacity { break explore }
                    if toNext {
                        nextPCs[nextCount] = pc
                        if slotCount > 0 { (nextSlots + nextCount * slotCount).update(from: scratch, count: slotCount) }
                        nextCount += 1
                    } else {
                        currentPCs[currentCount] = pc
                        if slotCount > 0 {
                            (currentSlots + currentCount * slotCount).update(from: scratch, count: slotCount)
                        }
                        currentCount += 1
                    }
                    break explore
                }
            }
        }
    }

    // MARK: - text

    @inline(__always)
    private func decode(at i: Int) -> (UInt32, Int) { RegexText.decode(text, at: i) }

    private mutating func advanceWordState(from start: Int, to end: Int) {
        var i = start
        while i < end {
            let (c, length) = decode(at: i)
            if !RegexText.isWordSkip(c) { wordBefore = RegexText.isWord(c) }
            i += length
        }
    }

    private func holds(_ a: Assertion, at i: Int) -> Bool {
        RegexText.holds(a, in: text, at: i, wordBefore: wordBefore)
    }
}
