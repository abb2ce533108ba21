/// The named character sets: the escapes \d \w \s \h \v, the properties \p{...} and the POSIX
/// classes [[:alpha:]]. Each definition is ICU's (checked against NSRegularExpression over every
/// scalar in the tests), evaluated with the standard library's Unicode data, so nothing is
/// tabulated here and nothing is scanned at compile time.
enum NamedSet: Sendable, Equatable {
    /// A union of general categories, one bit per category (see `bit(_:)`).
    case categories(UInt64)
    case alphabetic, lowercase, uppercase, whiteSpace, hexDigit, any, ascii, assigned
    /// \w: Alphabetic, marks, decimal digits, connector punctuation, ZWNJ and ZWJ.
    case word
    /// \h and [:blank:]: tab and space separators.
    case horizontalSpace
    /// \v: the line terminators LF, VT, FF, CR, NEL, LS, PS.
    case verticalSpace
    /// [:alnum:]: Alphabetic and decimal digits.
    case posixAlnum
    /// [:xdigit:]: decimal digits and Hex_Digit.
    case posixXDigit
    /// [:graph:]: not white space, control, surrogate or unassigned.
    case posixGraph
    /// [:print:]: [:graph:] and space separators.
    case posixPrint

    func contains(_ s: Unicode.Scalar) -> Bool {
        let p = s.properties
        switch self {
        case .categories(let mask): return mask & (1 << Self.bit(p.generalCategory)) != 0
        case .alphabetic: return p.isAlphabetic
        case .lowercase: return p.isLowercase
        case .uppercase: return p.isUppercase
        case .whiteSpace: return p.isWhitespace
        case .hexDigit: return p.isHexDigit
        case .any: return true
        case .ascii: return s.value < 0x80
        case .assigned: return p.generalCategory != .unassigned
        case .word:
            if p.isAlphabetic || s.value == 0x200C || s.value == 0x200D { return true }
            return Self.wordCategories & (1 << Self.bit(p.generalCategory)) != 0
        case .horizontalSpace: return s.value == 0x09 || p.generalCategory == .spaceSeparator
        case .verticalSpace: return Self.isLineTerminator(s.value)
        case .posixAlnum: return p.isAlphabetic || p.generalCategory == .decimalNumber
        case .posixXDigit: return p.isHexDigit || p.generalCategory == .decimalNumber
        case .posixGraph: return Self.isGraph(p)
        case .posixPrint: return Self.isGraph(p) || p.generalCategory == .spaceSeparator
        }
    }

    /// ICU's line terminators: what `.` does not match, and what `$` and (?m)^ look for.
    static func isLineTerminator(_ v: UInt32) -> Bool {
        (0x0A...0x0D).contains(v) || v == 0x85 || v == 0x2028 || v == 0x2029
    }

    private static func isGraph(_ p: Unicode.Scalar.Properties) -> Bool {
        switch p.generalCategory {
        case .control, .surrogate, .unassigned: return false
        default: return !p.isWhitespace
        }
    }

    private static let wordCategories: UInt64 = mask([
        .nonspacingMark, .spacingMark, .enclosingMark,
        .decimalNumber, .connectorPunctuation,
    ])

    static func mask(_ categories: [Unicode.GeneralCategory]) -> UInt64 {
        categories.reduce(0) { $0 | 1 << bit($1) }
    }

    static func bit(_ c: Unicode.GeneralCategory) -> UInt64 {
        switch c {
        case .uppercaseLetter: 0
        case .lowercaseLetter: 1
        case .titlecaseLetter: 2
        case .modifierLetter: 3
        case .otherLetter: 4
        case .nonspacingMark: 5
        case .spacingMark: 6
        case .enclosingMark: 7
        case .decimalNumber: 8
        case .letterNumber: 9
        case .otherNumber: 10
        case .connectorPunctuation: 11
        case .dashPunctuation: 12
        case .openPunctuation: 13
        case .closePunctuation: 14
        case .initialPunctuation: 15
        case .finalPunctuation: 16
        case .otherPunctuation: 17
        case .mathSymbol: 18
        case .currencySymbol: 19
        case .modifierSymbol: 20
        case .otherSymbol: 21
        case .spaceSeparator: 22
        case .lineSeparator: 23
        case .paragraphSeparator: 24
        case .control: 25
        case .format: 26
        case .surrogate: 27
        case .privateUse: 28
        case .unassigned: 29
        @unknown default: 29
        }
    }

    // MARK: - names

    /// Resolves a property name as ICU does loosely: case, spaces, '_' and '-' are ignored;
    /// `gc=` and `General_Category=` prefixes are allowed. Scripts, blocks and the many other
    /// binary properties ICU knows are not supported (nil).
    static func resolve(_ name: String) -> NamedSet? {
        var key = ""
        for s in name.unicodeScalars {
            guard s.isASCII else { return nil }
            if s == " " || s == "_" || s == "-" { continue }
            let v = s.value
            key.unicodeScalars.append((0x41...0x5A).contains(v) ? Unicode.Scalar(UInt8(v + 0x20)) : s)
        }
        if let eq = key.firstIndex(of: "=") {
            let property = key[..<eq]
            let value = String(key[key.index(after: eq)...])
            guard property == "gc" || property == "generalcategory" else { return nil }
            return categoryNames[value].map { .categories($0) }
        }
        if let mask = categoryNames[key] { return .categories(mask) }
        return otherNames[key]
    }

    private static let categoryNames: [String: UInt64] = {
        let L: [Unicode.GeneralCategory] = [
            .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
        ]
        let M: [Unicode.GeneralCategory] = [.nonspacingMark, .spacingMark, .enclosingMark]
        let N: [Unicode.GeneralCategory] = [.decimalNumber, .letterNumber, .otherNumber]
        let P: [Unicode.GeneralCategory] = [
            .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
            .initialPunctuation, .finalPunctuation, .otherPunctuation,
        ]
        let S: [Unicode.GeneralCategory] = [.mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol]
        let Z: [Unicode.GeneralCategory] = [.spaceSeparator, .lineSeparator, .paragraphSeparator]
        let C: [Unicode.GeneralCategory] = [.control, .format, .surrogate, .privateUse, .unassigned]
        let table: [([String], [Unicode.GeneralCategory])] = [
            (["l", "letter"], L), (["lc", "casedletter"], [.uppercaseLetter, .lowercaseLetter, .titlecaseLetter]),
            (["lu", "uppercaseletter"], [.uppercaseLetter]), (["ll", "lowercaseletter"], [.lowercaseLetter]),
            (["lt", "titlecaseletter"], [.titlecaseLetter]), (["lm", "modifierletter"], [.modifierLetter]),
            (["lo", "otherletter"], [.otherLetter]),
            (["m", "mark", "combiningmark"], M), (["mn", "nonspacingmark"], [.nonspacingMark]),
            (["mc", "spacingmark"], [.spacingMark]), (["me", "enclosingmark"], [.enclosingMark]),
            (["n", "number"], N), (["nd", "decimalnumber", "digit"], [.decimalNumber]),
            (["nl", "letternumber"], [.letterNumber]), (["no", "othernumber"], [.otherNumber]),
            (["p", "punctuation", "punct"], P), (["pc", "connectorpunctuation"], [.connectorPunctuation]),
            (["pd", "dashpunctuation"], [.dashPunctuation]), (["ps", "openpunctuation"], [.openPunctuation]),
            (["pe", "closepunctuation"], [.closePunctuation]), (["pi", "initialpunctuation"], [.initialPunctuation]),
            (["pf", "finalpunctuation"], [.finalPunctuation]), (["po", "otherpunctuation"], [.otherPunctuation]),
            (["s", "symbol"], S), (["sm", "mathsymbol"], [.mathSymbol]), (["sc", "currencysymbol"], [.currencySymbol]),
            (["sk", "modifiersymbol"], [.modifierSymbol]), (["so", "othersymbol"], [.otherSymbol]),
            (["z", "separator"], Z), (["zs", "spaceseparator"], [.spaceSeparator]),
            (["zl", "lineseparator"], [.lineSeparator]), (["zp", "paragraphseparator"], [.paragraphSeparator]),
            (["c", "other"], C), (["cc", "control", "cntrl"], [.control]), (["cf", "format"], [.format]),
            (["cs", "surrogate"], [.surrogate]), (["co", "privateuse"], [.privateUse]),
            (["cn", "unassigned"], [.unassigned]),
        ]
        var names: [String: UInt64] = [:]
        for (aliases, categories) in table { for a in aliases { names[a] = mask(categories) } }
        return names
    }()

    private static let otherNames: [String: NamedSet] = [
        "alphabetic": .alphabetic, "alpha": .alphabetic,
        "lowercase": .lowercase, "lower": .lowercase,
        "uppercase": .uppercase, "upper": .uppercase,
        "whitespace": .whiteSpace, "wspace": .whiteSpace, "space": .whiteSpace,
        "hexdigit": .hexDigit, "hex": .hexDigit,
        "any": .any, "ascii": .ascii, "assigned": .assigned,
        "alnum": .posixAlnum, "xdigit": .posixXDigit, "graph": .posixGraph, "print": .posixPrint,
        "blank": .horizontalSpace, "word": .word,
    ]
}
