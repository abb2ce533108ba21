/// Case-insensitive matching the way ICU (NSRegularExpression) does it:
///  - a single pattern character, and a class, match the characters with the same *simple* case
///    folding (k matches K and the Kelvin sign U+212A; [ß] matches ẞ but not "ss");
///  - a run of literal characters matches text whose *full* case folding equals the run's
///    (ß matches "ss", "ss" matches ß, ﬀ matches "ff"), as ICU's case-insensitive strings do.
///
/// The standard library has case mappings but no case folding, so the folding is derived:
/// full folding of c is lowercase(uppercase(lowercase(c))), which equals CaseFolding.txt's C+F
/// entries up to the choice of representative, except for U+0131 (dotless i), which folds to
/// itself. Two characters have the same simple folding exactly when their full foldings are
/// equal, so the characters are grouped by full folding ("orbits"). Both claims are checked
/// against NSRegularExpression over every cased character in the tests.
///
/// Built once per process (about 130,000 property lookups, a few milliseconds) when the first
/// case-insensitive pattern compiles.
struct CaseFolding: Sendable {
    static let shared = CaseFolding()

    /// Every character that changes under case mapping or folding is below this (the tests
    /// check it against the standard library's tables).
    static let scanLimit: UInt32 = 0x20000

    /// Full folding of every scalar whose folding is not itself.
    private let folds: [UInt32: [UInt32]]
    /// Scalar to index in `orbits`, for scalars that share their folding with another scalar.
    private let orbitIndex: [UInt32: Int]
    /// Groups of two or more scalars with equal full folding, each sorted.
    let orbits: [[UInt32]]
    /// Scalars whose full folding is more than one scalar (ß → ss), with that folding.
    let multiFolds: [(scalar: UInt32, fold: [UInt32])]

    private init() {
        var folds: [UInt32: [UInt32]] = [:]
        var byFold: [[UInt32]: [UInt32]] = [:]
        for v in 0..<Self.scanLimit {
            guard let s = Unicode.Scalar(v) else { continue }
            let p = s.properties
            guard p.changesWhenCaseMapped || p.changesWhenCaseFolded else { continue }
            let f = Self.derivedFullFold(s)
            if f != [v] { folds[v] = f }
            byFold[f, default: []].append(v)
        }
        // A one-scalar folding is its own folding, so it belongs to the group it names.
        for (key, members) in byFold where key.count == 1 && !members.contains(key[0]) {
            byFold[key, default: []].append(key[0])
        }
        var orbits: [[UInt32]] = []
        var index: [UInt32: Int] = [:]
        for members in byFold.values where members.count > 1 {
            for m in members { index[m] = orbits.count }
            orbits.append(members.sorted())
        }
        self.folds = folds
        self.orbitIndex = index
        self.orbits = orbits
        self.multiFolds = folds.filter { $0.value.count > 1 }.map { (scalar: $0.key, fold: $0.value) }
            .sorted { $0.scalar < $1.scalar }
    }

    private static func derivedFullFold(_ s: Unicode.Scalar) -> [UInt32] {
        // Dotless i has no folding (CaseFolding.txt keeps it apart for Turkic), though its
        // uppercase is I.
        if s.value == 0x131 { return [s.value] }
        func map(_ scalars: [Unicode.Scalar], _ f: (Unicode.Scalar.Properties) -> String) -> [Unicode.Scalar] {
            scalars.flatMap { Array(f($0.properties).unicodeScalars) }
        }
        let once = map([s], \.lowercaseMapping)
        return map(map(once, \.uppercaseMapping), \.lowercaseMapping).map(\.value)
    }

    /// Full case folding of one scalar: one to three scalars.
    func fold(_ v: UInt32) -> [UInt32] { folds[v] ?? [v] }

    /// The scalars with the same simple folding as `v`, `v` included, sorted.
    func orbit(of v: UInt32) -> [UInt32] {
        if let i = orbitIndex[v] { return orbits[i] }
        return [v]
    }

    /// Whether some scalar with the same folding as `v` (v included) satisfies `test`.
    func anyInOrbit(of v: UInt32, _ test: (UInt32) -> Bool) -> Bool {
        guard let i = orbitIndex[v] else { return test(v) }
        return orbits[i].contains(where: test)
    }

    /// The set plus every scalar that folds like one of its members (ICU's case closure).
    func closure(of set: ScalarSet) -> ScalarSet {
        var extra: [ClosedRange<UInt32>] = []
        for orbit in orbits where orbit.contains(where: set.contains) {
            for m in orbit where !set.contains(m) { extra.append(m...m) }
        }
        return extra.isEmpty ? set : ScalarSet(ranges: set.ranges + extra)
    }
}
