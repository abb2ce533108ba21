import JSON

/// A YAML document refused at a line and column (1-based; the column counts characters, not
/// bytes), worded for the person who wrote the file, like `JSONSyntaxError`.
package struct YAMLSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    package let position: SourcePosition
    package let message: String

    package init(position: SourcePosition, message: String) {
        self.position = position
        self.message = message
    }

    package var description: String { "line \(position.line), column \(position.column): \(message)" }
}
