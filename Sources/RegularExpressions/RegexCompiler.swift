/// Turns the parsed pattern into a program. Compiles backwards (each node is given the
/// instruction it continues to), so no jump lists need patching except for loops.
///
/// Repetition follows ICU (NSRegularExpression), whose priorities decide which match and which
/// captures win:
///  - x{n,m} with finite m is n copies of x then m-n nested optional copies; a copy may match
///    empty and the next one still runs, as ICU's counted loops do;
///  - an unbounded loop whose body cannot match empty is the classic split/jump loop;
///  - an unbounded loop whose body can match empty ends an iteration that consumed nothing by
///    leaving the loop (ICU's JMP_SAV_X / CTR_LOOP progress check), so `(a|)*` on "aa" matches
///    "" and `(a*)*b` on "aab" leaves group 1 empty at 2. For x{n,} the first check measures
///    from before the n mandatory copies, as ICU's counter loop does.
struct RegexCompiler {
    private var program = RegexProgram()
    private var depths: [Int32] = []
    /// How many loops with a possibly-empty body enclose the instructions being emitted.
    private var loopDepth: Int32 = 0
    private let tooLarge = RegexSyntaxError(
        offset: 0,
        message:
            "pattern too large: it would compile to more than \(RegexLimits.maxInstructions) instructions"
    )

    static func compile(_ root: RegexNode, captureGroupCount: Int) throws(RegexSyntaxError) -> RegexProgram {
        var c = RegexCompiler()
        let match = try c.emit(Instruction(op: .match, next: -1))
        let end = try c.emit(Instruction(op: .save, next: match, arg: 1))
        let body = try c.compile(root, next: end)
        c.program.start = try c.emit(Instruction(op: .save, next: body, arg: 0))
        c.program.captureGroupCount = captureGroupCount
        c.program.startsWithLineStart = root.searchesLineStartsOnly
        try c.finish()
        return c.program
    }

    private mutating func emit(_ instruction: Instruction) throws(RegexSyntaxError) -> Int32 {
        guard program.instructions.count < RegexLimits.maxInstructions + 16 else { throw tooLarge }
        program.instructions.append(instruction)
        depths.append(loopDepth)
        return Int32(program.instructions.count - 1)
    }

    private mutating func finish() throws(RegexSyntaxError) {
        var total = 0
        for (i, inst) in program.instructions.enumerated() {
            let once = inst.consumes || inst.isMatch
            program.instructions[i].stateBase = Int32(clamping: total)
            program.instructions[i].stateStride = once ? 0 : 1
            total += once ? 1 : Int(depths[i]) + 1
            if inst.consumes { program.consumingCount += 1 }
            if inst.op == .assert, let a = Assertion(rawValue: inst.arg), a == .wordBoundary || a == .notWordBoundary {
                program.hasWordAssertions = true
            }
        }
        guard total <= RegexLimits.maxInstructions * 10 else {
            throw RegexSyntaxError(
                offset: 0,
                message:
                    "pattern too large: too many nested repetitions of groups that can match empty"
            )
        }
        let slots = 2 * (program.captureGroupCount + 1)
        guard slots.multipliedReportingOverflow(by: program.consumingCount).partialValue <= RegexLimits.maxCaptureCells,
            slots <= RegexLimits.maxCaptureCells
        else {
            throw RegexSyntaxError(
                offset: 0,
                message:
                    """
                    pattern too large: \(program.captureGroupCount) capture groups in a pattern this long; \
                    write (?:...) for groups that need not capture
                    """
            )
        }
        program.stateCount = total
    }

    private mutating func compile(_ node: RegexNode, next: Int32) throws(RegexSyntaxError) -> Int32 {
        switch node {
        case .empty:
            return next
        case .literal(let scalars, let caseInsensitive):
            if caseInsensitive { return try foldedRun(scalars, next: next) }
            var entry = next
            for v in scalars.reversed() {
                entry = try emit(Instruction(op: .scalar, next: entry, arg: Int32(bitPattern: v)))
            }
            return entry
        case .characterClass(let set):
            return try emit(Instruction(op: .set, next: next, arg: addClass(set)))
        case .dot(let dotAll):
            guard dotAll else { return try emit(Instruction(op: .anyButNewline, next: next)) }
            let lf = try emit(Instruction(op: .scalar, next: next, arg: 0x0A))
            return try emit(Instruction(op: .anyDotAll, next: next, alt: lf))
        case .lineBreak:
            let lf = try emit(Instruction(op: .scalar, next: next, arg: 0x0A))
            return try emit(Instruction(op: .lineBreak, next: next, alt: lf))
        case .assertion(let a):
            return try emit(Instruction(op: .assert, next: next, arg: a.rawValue))
        case .capture(let index, let body):
            let close = try emit(Instruction(op: .save, next: next, arg: Int32(2 * index + 1)))
            let inner = try compile(body, next: close)
            return try emit(Instruction(op: .save, next: inner, arg: Int32(2 * index)))
        case .concat(let items):
            var entry = next
            for item in items.reversed() { entry = try compile(item, next: entry) }
            return entry
        case .alternation(let branches):
            var entries: [Int32] = []
            for b in branches { entries.append(try compile(b, next: next)) }
            var entry = entries[entries.count - 1]
            for e in entries.dropLast().reversed() { entry = try emit(Instruction(op: .split, next: e, alt: entry)) }
            return entry
        case .repetition(let body, let min, let max, let greedy, _):
            if let max { return try counted(body, min: min, max: max, greedy: greedy, next: next) }
            return body.canBeEmpty
                ? try emptyableLoop(body, min: min, greedy: greedy, next: next)
                : try loop(body, min: min, greedy: greedy, next: next)
        case .lookaround(let body, let behind, let negative):
            let end = try emit(Instruction(op: .lookEnd, next: -1))
            let bodyPC = try compile(body, next: end)
            let kind = Lookaround(behind: behind, negative: negative, maxLength: body.maxLength ?? 0)
            return try emit(Instruction(op: .lookStart, next: bodyPC, alt: next, arg: kind.arg))
        case .atomic(let body):
            let end = try emit(Instruction(op: .atomicEnd, next: next))
            let bodyPC = try compile(body, next: end)
            return try emit(Instruction(op: .atomicStart, next: bodyPC))
        case .backReference(let group, let caseInsensitive):
            return try emit(
                Instruction(op: .backReference, next: next, arg: Int32(group << 1 | (caseInsensitive ? 1 : 0)))
            )
        }
    }

    private mutating func addClass(_ set: CharacterClass) -> Int32 {
        program.classes.append(set)
        return Int32(program.classes.count - 1)
    }

    private mutating func split(_ greedy: Bool, body: Int32, exit: Int32) throws(RegexSyntaxError) -> Int32 {
        try emit(Instruction(op: .split, next: greedy ? body : exit, alt: greedy ? exit : body))
    }

    private mutating func counted(
        _ body: RegexNode,
        min: Int,
        max: Int,
        greedy: Bool,
        next: Int32
    ) throws(RegexSyntaxError) -> Int32 {
        var entry = next
        for _ in 0..<(max - min) {
            // Each optional copy, when taken, continues to the next optional copy; skipping
            // one leaves the loop.
            let copy = try compile(body, next: entry)
            entry = try split(greedy, body: copy, exit: next)
        }
        for _ in 0..<min { entry = try compile(body, next: entry) }
        return entry
    }

    private mutating func loop(_ body: RegexNode, min: Int, greedy: Bool, next: Int32) throws(RegexSyntaxError) -> Int32
    {
        // x+ is `L: x; split(L, exit)`; x* enters at the split; x{n,} puts n-1 copies first.
        let splitPC = try emit(Instruction(op: .split, next: -1))
        let bodyPC = try compile(body, next: splitPC)
        program.instructions[Int(splitPC)] = Instruction(
            op: .split,
            next: greedy ? bodyPC : next,
            alt: greedy ? next : bodyPC
        )
        if min == 0 { return splitPC }
        var entry = bodyPC
        for _ in 1..<min { entry = try compile(body, next: entry) }
        return entry
    }

    private mutating func emptyableLoop(
        _ body: RegexNode,
        min: Int,
        greedy: Bool,
        next: Int32
    ) throws(RegexSyntaxError) -> Int32 {
        // One iteration: iterStart; body; iterEnd (back to iterStart, or exit).
        let register = Int32(program.loopRegisterCount)
        program.loopRegisterCount += 1
        let endArg = register << 1 | (greedy ? 1 : 0)
        loopDepth += 1
        let endPC = try emit(Instruction(op: .iterEnd, next: -1))
        let bodyPC = try compile(body, next: endPC)
        loopDepth -= 1
        let startPC = try emit(Instruction(op: .iterStart, next: bodyPC, arg: register))
        program.instructions[Int(endPC)] = Instruction(op: .iterEnd, next: startPC, alt: next, arg: endArg)
        switch min {
        case 0: return try split(greedy, body: startPC, exit: next)
        case 1: return startPC
        default:
            // The mandatory copies form the first iteration, which ends in the progress check.
            loopDepth += 1
            var entry = try emit(Instruction(op: .iterEnd, next: startPC, alt: next, arg: endArg))
            for _ in 0..<min { entry = try compile(body, next: entry) }
            loopDepth -= 1
            return try emit(Instruction(op: .iterStart, next: entry, arg: register))
        }
    }

    /// A case-insensitive literal run. One scalar whose folding is one scalar is a plain class
    /// (its case orbit); anything else is a chain of fold steps over the folded run, laid out
    /// contiguously so that a step advancing by k continues k instructions further.
    private mutating func foldedRun(_ scalars: [UInt32], next: Int32) throws(RegexSyntaxError) -> Int32 {
        let folding = CaseFolding.shared
        let folded = scalars.flatMap { folding.fold($0) }
        if folded.count == 1 {
            return try emit(
                Instruction(op: .set, next: next, arg: addClass(CharacterClass(scalars: folding.orbit(of: folded[0]))))
            )
        }
        let first = Int32(program.instructions.count)
        for p in folded.indices {
            var multis: [(scalar: UInt32, advance: Int32)] = []
            for m in folding.multiFolds where folded[p...].starts(with: m.fold) {
                multis.append((m.scalar, Int32(m.fold.count)))
            }
            program.foldSteps.append(
                FoldStep(
                    singles: CharacterClass(scalars: folding.orbit(of: folded[p])),
                    multis: multis,
                    position: Int32(p),
                    length: Int32(folded.count)
                )
            )
            let pc = try emit(Instruction(op: .foldStep, next: next, arg: Int32(program.foldSteps.count - 1)))
            guard pc == first + Int32(p) else { throw tooLarge }  // contiguity is what the VM relies on
        }
        return first
    }
}
