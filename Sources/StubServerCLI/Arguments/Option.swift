/// One command-line option a command owns: its name, its value (if it takes one), its help.
struct Option: Sendable, Equatable {
    let name: String
    /// The placeholder in help (`DIR`, `N`); nil for a flag that takes no value.
    let value: String?
    let help: String
    /// May be given more than once (`--proxy-header A --proxy-header B`).
    var repeatable = false

    static func flag(_ name: String, _ help: String) -> Option { Option(name: name, value: nil, help: help) }
    static func value(_ name: String, _ placeholder: String, _ help: String, repeatable: Bool = false) -> Option {
        Option(name: name, value: placeholder, help: help, repeatable: repeatable)
    }

    /// `  --dir DIR              what it does`, aligned.
    var helpLine: String {
        let left = value.map { "\(name) \($0)" } ?? name
        return "  " + left.padded(to: max(23, left.count + 1)) + help
    }
}

/// A usage mistake: one line, a hint, exit status 2.
package struct UsageError: Error, Equatable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
