/// The compiled form: a Thompson NFA as instructions for the Pike VM (PikeVM.swift).
struct Instruction: Sendable {
    enum Op: UInt8, Sendable {
        // Consuming: each takes exactly one scalar (a CR LF pair goes through a second
        // instruction, `alt`, so every step still consumes one scalar).
        case scalar  // arg: the scalar
        case set  // arg: index in `classes`
        case anyButNewline  // `.`: anything but a line terminator
        case anyDotAll  // (?s) `.`: anything; CR before LF continues at `alt` (which takes the LF)
        case lineBreak  // \R: a line terminator; CR before LF continues at `alt`
        case foldStep  // arg: index in `foldSteps` (case-insensitive literal runs)
        // Not consuming.
        case split  // try `next`, then `alt`
        case jump
        case save  // arg: capture slot
        case assert  // arg: Assertion.rawValue
        case iterStart  // starts an iteration of a loop whose body can match empty; arg: its register
        case iterEnd  // ends one: arg register << 1 | 1 greedy, 0 lazy; `next` loops back, `alt` exits
        // The backtracking engine's only (BacktrackingVM); the Pike VM never runs them.
        case lookStart  // `next` the body, `alt` after the look-around; arg see `Lookaround`
        case lookEnd  // the body of the innermost open look-around matched
        case atomicStart  // `next` the body
        case atomicEnd  // the body of the innermost open atomic group matched; `next` after it
        case backReference  // arg: group << 1 | 1 when case-insensitive
        case match
    }

    var op: Op
    var next: Int32
    var alt: Int32 = -1
    var arg: Int32 = 0
    /// Set by the compiler when the program is complete: where this instruction's visited
    /// states begin, and 1 when there is one per k (see PikeVM), 0 when there is only one.
    var stateBase: Int32 = 0
    var stateStride: Int32 = 0

    var consumes: Bool {
        @inline(__always) get { op.rawValue <= Op.foldStep.rawValue }
    }
    var isMatch: Bool {
        @inline(__always) get { op.rawValue == Op.match.rawValue }
    }
}

/// One position in a case-insensitive literal run, matched by full case folding: a scalar
/// whose folding is the run's next folded scalar advances one position, a scalar whose folding
/// is several scalars (ß → ss) advances that many, if they come next in the run.
struct FoldStep: Sendable {
    /// Scalars whose whole folding is the folded run's scalar at this position.
    let singles: CharacterClass
    /// Scalars whose folding is two or three scalars that come next in the run.
    let multis: [(scalar: UInt32, advance: Int32)]
    /// This position, and the length of the folded run.
    let position: Int32
    let length: Int32

    /// How many positions `v` advances, or 0 when it does not fit here.
    @inline(__always)
    func advance(_ v: UInt32) -> Int32 {
        if singles.contains(v) { return 1 }
        for m in multis where m.scalar == v { return m.advance }
        return 0
    }
}

/// A look-around's kind and, for a look-behind, the most scalars its body can match, packed
/// into a `lookStart`'s arg.
struct Lookaround {
    let behind: Bool
    let negative: Bool
    let maxLength: Int

    init(behind: Bool, negative: Bool, maxLength: Int) {
        self.behind = behind
        self.negative = negative
        self.maxLength = maxLength
    }

    init(arg: Int32) {
        negative = arg & 1 != 0
        behind = arg & 2 != 0
        maxLength = Int(arg >> 2)
    }

    var arg: Int32 { Int32(Swift.min(maxLength, 1 << 20)) << 2 | (behind ? 2 : 0) | (negative ? 1 : 0) }
}

struct RegexProgram: Sendable {
    var instructions: [Instruction] = []
    var classes: [CharacterClass] = []
    var foldSteps: [FoldStep] = []
    var start: Int32 = 0
    /// Visited-states in all: an instruction inside loops whose body can match empty is visited
    /// once per "how many of those loops began their current iteration at this position" (see
    /// PikeVM), consuming ones once.
    var stateCount = 0
    var captureGroupCount = 0
    var consumingCount = 0
    /// Loops whose body can match empty, each with a register (the backtracking engine keeps
    /// where its current iteration began there, for the progress check).
    var loopRegisterCount = 0
    var hasWordAssertions = false
    /// ICU would search only at line starts (see `RegexNode.searchesLineStartsOnly`).
    var startsWithLineStart = false
}
