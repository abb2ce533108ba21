/// Runs a compiled program (the same one the Pike VM runs) depth-first, trying alternatives in
/// priority order and backtracking on failure, as ICU and Java do: that is what look-around,
/// back-references and atomic groups need. Its time can grow exponentially with the text, so
/// every instruction executed and every entry undone counts one step against a budget, and a
/// run that reaches the budget stops with `aborted`: the caller decides what that means.
///
/// The backtrack stack holds three kinds of entries: a choice to resume (pc and position), a
/// register to restore (a capture slot, or where a loop's iteration began), and the start of an
/// open look-around or atomic group (a mark). Reaching the end of an atomic group or a positive
/// look-around drops the choices left inside it but keeps the restores, so backtracking past
/// it still undoes what it captured. Each entry is pushed by a step, so memory is bounded by
/// the budget too.
struct BacktrackingVM {
    enum Outcome: Equatable {
        /// Slots: UTF-8 offsets, two per group (group 0 first; -1 when unset).
        case matched([Int])
        case noMatch
        case aborted
    }

    private enum Kind: UInt8 {
        case choice
        case restore
        case look
        case atomic
    }

    /// pc and position; for `restore` the slot and its old value; for a mark the start pc.
    private struct Frame {
        var kind: Kind
        var pc: Int32
        var value: Int
    }

    /// An open look-around or atomic group: where its mark is on the stack, and for a
    /// look-around the position it looks from, and (look-behind) where this attempt began
    /// and how many scalars back that is.
    private struct Mark {
        let frame: Int
        let pc: Int
        let origin: Int
        var attemptStart: Int
        var back: Int
    }

    private let program: RegexProgram
    private let instructions: UnsafeBufferPointer<Instruction>
    private let classes: UnsafeBufferPointer<CharacterClass>
    private let text: UnsafeBufferPointer<UInt8>
    private let whole: Bool
    private let budget: Int
    /// Capture slots, then loop registers.
    private let slots: UnsafeMutableBufferPointer<Int>
    /// The backtrack stack: grown by doubling, freed when the run ends.
    private var stack: UnsafeMutablePointer<Frame>
    private var stackCount = 0
    private var stackCapacity = 64
    private var marks: [Mark] = []
    private(set) var steps = 0

    /// `whole`: the match must span the text (ICU's `\A(?:PATTERN)\z`); otherwise the leftmost
    /// match, tried from each start in turn.
    static func run(
        _ program: RegexProgram,
        text: UnsafeBufferPointer<UInt8>,
        whole: Bool,
        budget: Int,
        steps: inout Int
    ) -> Outcome {
        program.instructions.withUnsafeBufferPointer { instructions in
            program.classes.withUnsafeBufferPointer { classes in
                var vm = BacktrackingVM(
                    program: program,
                    instructions: instructions,
                    classes: classes,
                    text: text,
                    whole: whole,
                    budget: budget
                )
                defer { vm.free() }
                let outcome = vm.search()
                steps += vm.steps
                return outcome
            }
        }
    }

    private init(
        program: RegexProgram,
        instructions: UnsafeBufferPointer<Instruction>,
        classes: UnsafeBufferPointer<CharacterClass>,
        text: UnsafeBufferPointer<UInt8>,
        whole: Bool,
        budget: Int
    ) {
        self.program = program
        self.instructions = instructions
        self.classes = classes
        self.text = text
        self.whole = whole
        self.budget = budget
        slots = .allocate(capacity: 2 * (program.captureGroupCount + 1) + program.loopRegisterCount)
        slots.initialize(repeating: -1)
        stack = .allocate(capacity: 64)
    }

    private func free() {
        slots.deallocate()
        stack.deallocate()
    }

    private mutating func push(_ frame: Frame) {
        if stackCount == stackCapacity {
            let grown = UnsafeMutablePointer<Frame>.allocate(capacity: stackCapacity * 2)
            grown.moveInitialize(from: stack, count: stackCount)
            stack.deallocate()
            stack = grown
            stackCapacity *= 2
        }
        (stack + stackCount).initialize(to: frame)
        stackCount += 1
    }

    private var registerBase: Int { 2 * (program.captureGroupCount + 1) }

    private mutating func search() -> Outcome {
        var start = 0
        while true {
            // ICU tries a pattern that starts with (?m)^ only at line starts, never between CR and LF.
            let betweenCRLF = start > 0 && start < text.count && text[start - 1] == 0x0D && text[start] == 0x0A
            if !(program.startsWithLineStart && betweenCRLF) {
                switch attempt(at: start) {
                case true?: return .matched(Array(slots[0..<registerBase]))
                case nil: return .aborted
                case false?: break
                }
            }
            if whole || start >= text.count { return .noMatch }
            start += RegexText.decode(text, at: start).1
        }
    }

    /// true: matched (the slots hold it); false: no match from here; nil: the budget ran out.
    private mutating func attempt(at start: Int) -> Bool? {
        for i in slots.indices { slots[i] = -1 }
        stackCount = 0
        marks.removeAll(keepingCapacity: true)
        var pc = Int(program.start)
        var pos = start
        while true {
            steps += 1
            if steps > budget { return nil }
            if let next = step(pc, &pos) {
                if next == Self.matchedPC { return true }
                pc = next
                continue
            }
            guard backtrack(&pc, &pos) else { return steps > budget ? nil : false }
        }
    }

    private static let matchedPC = -2

    /// Runs one instruction: the next pc (`matchedPC` for a match), or nil when it fails here.
    private mutating func step(_ pc: Int, _ pos: inout Int) -> Int? {
        let inst = instructions[pc]
        let end = text.count
        switch inst.op {
        case .scalar, .set, .anyButNewline, .anyDotAll, .lineBreak, .foldStep:
            guard pos < end else { return nil }
            let (c, length) = RegexText.decode(text, at: pos)
            let after = pos + length
            var target = -1
            switch inst.op {
            case .scalar: if c == UInt32(bitPattern: inst.arg) { target = Int(inst.next) }
            case .set: if classes[Int(inst.arg)].contains(c) { target = Int(inst.next) }
            case .anyButNewline: if !NamedSet.isLineTerminator(c) { target = Int(inst.next) }
            case .anyDotAll: target = Int(c == 0x0D && after < end && text[after] == 0x0A ? inst.alt : inst.next)
            case .lineBreak:
                if c == 0x0D && after < end && text[after] == 0x0A {
                    target = Int(inst.alt)
                } else if NamedSet.isLineTerminator(c) {
                    target = Int(inst.next)
                }
            default:
                let fold = program.foldSteps[Int(inst.arg)]
                let advance = Int(fold.advance(c))
                if advance > 0 {
                    target = Int(fold.position) + advance == Int(fold.length) ? Int(inst.next) : pc + advance
                }
            }
            guard target >= 0 else { return nil }
            pos = after
            return target
        case .split:
            push(Frame(kind: .choice, pc: inst.alt, value: pos))
            return Int(inst.next)
        case .jump:
            return Int(inst.next)
        case .save:
            set(Int(inst.arg), pos)
            return Int(inst.next)
        case .assert:
            guard let a = Assertion(rawValue: inst.arg) else { return nil }
            let wordBefore = a == .wordBoundary || a == .notWordBoundary ? RegexText.wordBefore(text, at: pos) : false
            return RegexText.holds(a, in: text, at: pos, wordBefore: wordBefore) ? Int(inst.next) : nil
        case .iterStart:
            set(registerBase + Int(inst.arg), pos)
            return Int(inst.next)
        case .iterEnd:
            // An iteration that consumed nothing leaves the loop (ICU's progress check).
            if slots[registerBase + Int(inst.arg >> 1)] == pos { return Int(inst.alt) }
            let greedy = inst.arg & 1 == 1
            push(Frame(kind: .choice, pc: greedy ? inst.alt : inst.next, value: pos))
            return Int(greedy ? inst.next : inst.alt)
        case .lookStart:
            marks.append(Mark(frame: stackCount, pc: pc, origin: pos, attemptStart: pos, back: 0))
            push(Frame(kind: .look, pc: Int32(pc), value: pos))
            return Int(inst.next)
        case .lookEnd:
            return lookEnd(&pos)
        case .atomicStart:
            marks.append(Mark(frame: stackCount, pc: pc, origin: pos, attemptStart: pos, back: 0))
            push(Frame(kind: .atomic, pc: Int32(pc), value: pos))
            return Int(inst.next)
        case .atomicEnd:
            guard let mark = marks.last, stack[mark.frame].kind == .atomic else { return nil }
            cut(to: mark)
            return Int(inst.next)
        case .backReference:
            return backReference(Int(inst.arg >> 1), caseInsensitive: inst.arg & 1 == 1, &pos) ? Int(inst.next) : nil
        case .match:
            if whole && pos != end { return nil }
            return Self.matchedPC
        }
    }

    /// A slot or register changes: its old value goes on the stack, to be restored.
    private mutating func set(_ slot: Int, _ value: Int) {
        push(Frame(kind: .restore, pc: Int32(slot), value: slots[slot]))
        slots[slot] = value
    }

    /// The body of the innermost look-around matched.
    private mutating func lookEnd(_ pos: inout Int) -> Int? {
        guard let mark = marks.last, stack[mark.frame].kind == .look else { return nil }
        let look = instructions[mark.pc]
        let kind = Lookaround(arg: look.arg)
        // A look-behind's body must end where the look-behind stands.
        if kind.behind && pos != mark.origin { return nil }
        if kind.negative {
            // It matched, so the look-around fails, wherever else its body might match: undo
            // everything the body did, drop the look-around, and backtrack before it.
            while stackCount > mark.frame {
                stackCount -= 1
                let frame = stack[stackCount]
                steps += 1
                if frame.kind == .restore { slots[Int(frame.pc)] = frame.value }
            }
            marks.removeLast()
            return nil
        }
        cut(to: mark)
        pos = mark.origin
        return Int(look.alt)
    }

    /// Leaves an atomic group or a positive look-around that matched: the choices inside it
    /// are dropped (never tried again), its mark too; restores stay.
    private mutating func cut(to mark: Mark) {
        var write = mark.frame
        for read in (mark.frame + 1)..<stackCount where stack[read].kind == .restore {
            stack[write] = stack[read]
            write += 1
        }
        steps += stackCount - mark.frame
        stackCount = write
        marks.removeLast()
    }

    /// Resumes at the latest choice, undoing what was done since; false when none is left.
    private mutating func backtrack(_ pc: inout Int, _ pos: inout Int) -> Bool {
        while stackCount > 0 {
            stackCount -= 1
            let frame = stack[stackCount]
            steps += 1
            if steps > budget { return false }
            switch frame.kind {
            case .restore:
                slots[Int(frame.pc)] = frame.value
            case .choice:
                pc = Int(frame.pc)
                pos = frame.value
                return true
            case .atomic:
                marks.removeLast()
            case .look:
                var mark = marks.removeLast()
                let look = instructions[mark.pc]
                let kind = Lookaround(arg: look.arg)
                // A look-behind tries the next place further back (shortest first, as Java).
                if kind.behind, mark.back < kind.maxLength, mark.attemptStart > 0 {
                    mark.attemptStart = RegexText.start(text, before: mark.attemptStart)
                    mark.back += 1
                    marks.append(
                        Mark(
                            frame: stackCount,
                            pc: mark.pc,
                            origin: mark.origin,
                            attemptStart: mark.attemptStart,
                            back: mark.back
                        )
                    )
                    push(frame)
                    pc = Int(look.next)
                    pos = mark.attemptStart
                    return true
                }
                if kind.negative {
                    // Its body cannot match: the negative look-around holds.
                    pc = Int(look.alt)
                    pos = mark.origin
                    return true
                }
            }
        }
        return false
    }

    /// Whether the text at `pos` repeats what `group` last matched (case-insensitively by
    /// simple case folding, scalar by scalar); a group that took no part matches nothing.
    private mutating func backReference(_ group: Int, caseInsensitive: Bool, _ pos: inout Int) -> Bool {
        let start = slots[2 * group]
        let end = slots[2 * group + 1]
        guard start >= 0, end >= start else { return false }
        steps += end - start
        if !caseInsensitive {
            let length = end - start
            guard pos + length <= text.count else { return false }
            for i in 0..<length where text[start + i] != text[pos + i] { return false }
            pos += length
            return true
        }
        var i = start
        var j = pos
        while i < end {
            guard j < text.count else { return false }
            let (a, la) = RegexText.decode(text, at: i)
            let (b, lb) = RegexText.decode(text, at: j)
            if a != b, !CaseFolding.shared.orbit(of: a).contains(b) { return false }
            i += la
            j += lb
        }
        pos = j
        return true
    }
}
