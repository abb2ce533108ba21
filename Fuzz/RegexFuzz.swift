// libFuzzer target for the regular-expression engine. Not part of the package (SwiftPM ignores
// this folder): scripts/fuzz compiles this file together with Sources/RegularExpressions/*.swift
// as one module (swiftc -sanitize=fuzzer,address -parse-as-library -package-name), so the
// engine's internal and package API is reachable. Only this file imports Foundation, for the
// reference: NSRegularExpression (ICU).
//
// Input encoding:
//   byte 0            flags: bit 0 case-insensitive; bits 1-3 pick a repeat count for the subject
//                     (1, 2, 4, 16, 64, 256, 1024, 4096: long subjects for the step bound)
//   bytes 1..<sep     the pattern, as UTF-8 (invalid bytes become U+FFFD)
//   0xFF              the separator (a byte UTF-8 never contains); none: the subject is empty
//   bytes after it    the subject, as UTF-8
//
// Invariants (a violation is a precondition failure, which libFuzzer saves as a crash):
//  1. compiling never traps; a refusal has a message and an offset within the pattern;
//  2. whatever compiles here compiles in ICU too, bare and wrapped as \A(?:...)\z, with as many
//     groups (patterns longer than 193 UTF-16 units skip the ICU checks: see `icuUsable`);
//  3. matchesWhole and firstMatch (range and every group) agree with ICU on the subject
//     (repeated at most 64 scalars), unless ICU gave up: ICU runs with a progress callback that
//     stops it after a fixed number of calls (its backtracking can take exponential time), and a
//     stop or an ICU internal error (its backtracking stack overflows, which it reports as no
//     match) skips the comparison;
//  4. the VM's step count stays within LinearRegex.maxSteps for every input, short or repeated;
//  5. self-consistency: a whole match implies a first match; groups lie within the match.
//
// Patterns that need backtracking (look-around, back-references, atomic groups, possessive
// quantifiers) go to BacktrackingRegex, with a small budget (`fuzzBudget`) so runs stay quick:
//  6. ParsedPattern.mayNeedBacktracking says true for every such pattern (the stubs' cheap
//     over-approximation must never miss one);
//  7. ICU compiles it too; the step count stays within twice the budget plus the text (the budget
//     is checked at every instruction and undo; leaving an atomic group drops its entries in one
//     go, which counts them all);
//  8. unless it gave up (aborted) or ICU did, matchesWhole and firstMatch agree with ICU, and a
//     whole match implies a first match.
// And both engines agree: 9. a pattern the linear engine runs gives the same answers on the
// backtracking engine, whenever the latter does not give up.
//
// Refusals where ICU accepts are deliberate (the engine is stricter, never looser): they only
// have to come with a message and an offset.
//
// Deliberate divergences, filtered here and documented in docs/stub-format.md:
//  - A back-reference followed by digits takes them while that many groups exist so far (Java's
//    rule); ICU refuses some such patterns: those are not compared.
//  - Unicode data: the engine uses the standard library's (Unicode 17 in Swift 6.3); the ICU in
//    Foundation is older (Unicode 16). Inputs containing a scalar assigned since, one whose case
//    partners include such a scalar, or U+0295 (whose properties changed) are not compared.
//  - NSRegularExpression refuses the empty pattern (ICU compiles it): "" is compared wrapped only.
//  - Where ICU gives up (invariant 3) the engine still answers; nothing is compared.
import Foundation

// MARK: - the reference

private struct Reference: Equatable {
    /// UTF-16 offsets and lengths, as NSRegularExpression reports them; nil: no match.
    var range: NSRange?
    var groups: [NSRange?] = []
}

/// ICU's first match, or nil when ICU gave up (too many progress calls, or an internal error).
private func icuFirstMatch(_ regex: NSRegularExpression, _ subject: String) -> Reference? {
    var result = Reference(range: nil)
    var progressCalls = 0
    var gaveUp = false
    regex.enumerateMatches(
        in: subject,
        options: [.reportProgress, .reportCompletion],
        range: NSRange(location: 0, length: (subject as NSString).length)
    ) { match, flags, stop in
        if flags.contains(.internalError) { gaveUp = true }
        if flags.contains(.progress) {
            progressCalls += 1
            if progressCalls > 400 {
                gaveUp = true
                stop.pointee = true
            }
        }
        guard let match else { return }
        result.range = match.range
        result.groups = (1..<match.numberOfRanges).map { i in
            let r = match.range(at: i)
            return r.location == NSNotFound ? nil : r
        }
        stop.pointee = true
    }
    return gaveUp ? nil : result
}

// MARK: - the Unicode version filter

private func comparable(_ text: String) -> Bool {
    for s in text.unicodeScalars {
        if s.value == 0x295 || isNewerThanICU(s.value) { return false }
        for m in CaseFolding.shared.orbit(of: s.value) where isNewerThanICU(m) { return false }
    }
    return true
}

private func isNewerThanICU(_ v: UInt32) -> Bool {
    guard let s = Unicode.Scalar(v), let age = s.properties.age else { return false }
    return age.major >= 17
}

// MARK: - one input

private let repeats = [1, 2, 4, 16, 64, 256, 1024, 4096]

private func describe(_ s: String) -> String { s.unicodeScalars.map { $0.escaped(asASCII: true) }.joined() }

private func fuzzRegex(_ input: [UInt8]) {
    guard let flags = input.first else { return }
    let body = input.dropFirst()
    let sep = body.firstIndex(of: 0xFF)
    let pattern = String(decoding: body[..<(sep ?? body.endIndex)], as: UTF8.self)
    let unit = sep.map { String(decoding: body[($0 + 1)...], as: UTF8.self) } ?? ""
    let caseInsensitive = flags & 1 != 0
    let times = repeats[Int(flags >> 1) & 7]
    let context = "pattern /\(describe(pattern))/\(caseInsensitive ? "i" : "") subject \"\(describe(unit))\" ×\(times)"

    let parsed: ParsedPattern
    do {
        parsed = try ParsedPattern(pattern, caseInsensitive: caseInsensitive)
    } catch {
        precondition(!error.message.isEmpty, "empty message: \(context)")
        precondition(
            (0...pattern.count).contains(error.offset),
            "offset \(error.offset) outside the pattern: \(context)"
        )
        return
    }
    if parsed.needsBacktracking {
        // 6.
        precondition(ParsedPattern.mayNeedBacktracking(pattern), "mayNeedBacktracking missed it: \(context)")
        fuzzBacktracking(parsed, unit: unit, times: times, context: context)
        return
    }
    let regex: LinearRegex
    do {
        regex = try LinearRegex(parsed)
    } catch {
        precondition(!error.message.isEmpty, "empty message: \(context)")
        precondition(
            (0...pattern.count).contains(error.offset),
            "offset \(error.offset) outside the pattern: \(context)"
        )
        return
    }
    precondition(regex.captureGroupCount >= 0 && regex.stateCount >= regex.programSize, "program figures: \(context)")

    // swift-corelibs-foundation leaks the buffer of a pattern of about 256 UTF-16 units or more
    // (_CFRegularExpressionCreate), which LeakSanitizer would report: such patterns only get
    // the checks that need no ICU.
    let icuUsable = pattern.utf16.count + 7 <= 200

    // 2. ICU compiles it too. (NSRegularExpression refuses the empty pattern itself, though ICU
    // compiles it; wrapped, it is \A(?:)\z, which matches the empty string, as LinearRegex("") does.)
    let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
    var bare: NSRegularExpression? = nil
    var wrapped: NSRegularExpression? = nil
    if icuUsable {
        bare = try? NSRegularExpression(pattern: pattern, options: options)
        wrapped = try? NSRegularExpression(pattern: "\\A(?:\(pattern))\\z", options: options)
        precondition(
            (bare != nil || pattern.isEmpty) && wrapped != nil,
            "ICU refuses a pattern LinearRegex accepts: \(context)"
        )
        precondition(
            wrapped?.numberOfCaptureGroups == regex.captureGroupCount,
            "group count \(regex.captureGroupCount) vs ICU \(wrapped?.numberOfCaptureGroups ?? -1): \(context)"
        )
    }

    // 4. The linear bound, on the subject as given and repeated.
    let subject = times == 1 ? unit : String(repeating: unit, count: min(times, 4096 / max(1, unit.utf8.count)))
    let limit = LinearRegex.maxSteps(stateCount: regex.stateCount, scalarCount: subject.unicodeScalars.count)
    if regex.stateCount <= 4000 || subject.utf8.count <= 256 {
        var stats = RegexRunStats()
        let whole = regex.matchesWhole(subject, stats: &stats)
        precondition(stats.steps <= limit, "matchesWhole took \(stats.steps) steps, bound \(limit): \(context)")
        stats = RegexRunStats()
        let first = regex.firstMatch(in: subject, stats: &stats)
        precondition(stats.steps <= limit, "firstMatch took \(stats.steps) steps, bound \(limit): \(context)")
        // 5. Self-consistency.
        if whole { precondition(first != nil, "a whole match but no first match: \(context)") }
        if let first {
            for g in first.groups.compactMap({ $0 }) {
                precondition(
                    g.lowerBound >= first.range.lowerBound && g.upperBound <= first.range.upperBound,
                    "a group outside the match: \(context)"
                )
            }
        }
    }

    // 9. Both engines agree, where the backtracking one decides within its budget.
    if subject.unicodeScalars.count <= 256, let backtracking = try? BacktrackingRegex(parsed, budget: fuzzBudget) {
        let verdict = backtracking.matchesWhole(subject)
        if verdict != .aborted {
            precondition(
                (verdict == .match) == regex.matchesWhole(subject),
                "the engines disagree on matchesWhole: \(context)"
            )
        }
        if case .found(let match) = backtracking.firstMatch(in: subject) {
            precondition(match == regex.firstMatch(in: subject), "the engines disagree on firstMatch: \(context)")
        }
    }

    // 3. The differential, on short subjects whose Unicode data both sides share.
    guard let wrapped, subject.unicodeScalars.count <= 64, comparable(pattern), comparable(subject) else { return }
    func reference(_ m: RegexMatch?) -> Reference {
        guard let m else { return Reference(range: nil) }
        return Reference(
            range: NSRange(m.range, in: subject),
            groups: m.groups.map { $0.map { NSRange($0, in: subject) } }
        )
    }
    if let icuWhole = icuFirstMatch(wrapped, subject) {
        let ours = regex.matchesWhole(subject)
        precondition(ours == (icuWhole.range != nil), "matchesWhole \(ours), ICU \(icuWhole.range != nil): \(context)")
    }
    if let bare, let icuFirst = icuFirstMatch(bare, subject) {
        let ours = reference(regex.firstMatch(in: subject))
        precondition(ours == icuFirst, "firstMatch \(ours), ICU \(icuFirst): \(context)")
    }
}

// MARK: - the backtracking engine

private let fuzzBudget = 20_000

/// A backslash, a digit from 1 to 9, another digit.
private let multiDigitBackReference = try! NSRegularExpression(pattern: #"\\[1-9][0-9]"#)

extension String {
    fileprivate func contains(_ regex: NSRegularExpression) -> Bool {
        regex.firstMatch(in: self, range: NSRange(location: 0, length: utf16.count)) != nil
    }
}

private func fuzzBacktracking(_ parsed: ParsedPattern, unit: String, times: Int, context: String) {
    let pattern = parsed.pattern
    let regex: BacktrackingRegex
    do {
        regex = try BacktrackingRegex(parsed, budget: fuzzBudget)
    } catch {
        precondition(!error.message.isEmpty, "empty message: \(context)")
        precondition(
            (0...pattern.count).contains(error.offset),
            "offset \(error.offset) outside the pattern: \(context)"
        )
        return
    }
    let options: NSRegularExpression.Options = parsed.caseInsensitive ? [.caseInsensitive] : []
    let icuUsable = pattern.utf16.count + 7 <= 200
    var bare: NSRegularExpression? = nil
    var wrapped: NSRegularExpression? = nil
    if icuUsable {
        // 7. ICU compiles it too.
        bare = try? NSRegularExpression(pattern: pattern, options: options)
        wrapped = try? NSRegularExpression(pattern: "\\A(?:\(pattern))\\z", options: options)
        // Java reads `\12` as `\1` and `2` when there are fewer than 12 groups so far; ICU refuses
        // some of those (with two groups or more): a deliberate divergence, nothing to compare.
        if bare == nil || wrapped == nil, pattern.contains(multiDigitBackReference) { return }
        precondition(bare != nil && wrapped != nil, "ICU refuses a pattern BacktrackingRegex accepts: \(context)")
        precondition(wrapped?.numberOfCaptureGroups == regex.captureGroupCount, "group count: \(context)")
    }
    let subject = times == 1 ? unit : String(repeating: unit, count: min(times, 4096 / max(1, unit.utf8.count)))
    let bound = 2 * fuzzBudget + subject.utf8.count + 2
    var stats = RegexRunStats()
    let whole = regex.matchesWhole(subject, stats: &stats)
    precondition(stats.steps <= bound, "matchesWhole took \(stats.steps) steps, bound \(bound): \(context)")
    stats = RegexRunStats()
    let first = regex.firstMatch(in: subject, stats: &stats)
    precondition(stats.steps <= bound, "firstMatch took \(stats.steps) steps, bound \(bound): \(context)")
    if whole == .match, first != .aborted {
        precondition(first != .found(nil), "a whole match but no first match: \(context)")
    }
    // (Groups may lie outside the match here: a look-around captures beside it.)
    // 8. The differential.
    guard let wrapped, let bare, subject.unicodeScalars.count <= 64, comparable(pattern), comparable(subject) else {
        return
    }
    func reference(_ m: RegexMatch?) -> Reference {
        guard let m else { return Reference(range: nil) }
        return Reference(
            range: NSRange(m.range, in: subject),
            groups: m.groups.map { $0.map { NSRange($0, in: subject) } }
        )
    }
    if whole != .aborted, let icuWhole = icuFirstMatch(wrapped, subject) {
        precondition(
            (whole == .match) == (icuWhole.range != nil),
            "matchesWhole \(whole), ICU \(icuWhole.range != nil): \(context)"
        )
    }
    if case .found(let match) = first, let icuFirst = icuFirstMatch(bare, subject) {
        let ours = reference(match)
        precondition(ours == icuFirst, "firstMatch \(ours), ICU \(icuFirst): \(context)")
    }
}

// MARK: - entry point

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    fuzzRegex(input)
    return 0
}
