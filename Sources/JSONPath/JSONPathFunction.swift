import JSON

/// A function step in a path (Jayway's path functions), applied to each value that reaches it,
/// with arguments that are JSON values or paths read from the document's root. Results and
/// errors are Jayway's: numbers come out as Java doubles (`4.0`), `max()` starts from Java's
/// `Double.MIN_VALUE` (so the max of negative numbers is 4.9E-324, as in Jayway), `length()` of
/// a string is null, and `first()` of an empty array, `max()` of no numbers or `last()` of a
/// one-element array are errors that abandon the evaluation.
package struct JSONPathFunction: Sendable {
    enum Name: String, Sendable, CaseIterable {
        case length, size, min, max, avg, sum, stddev, keys, concat, append, first, last, index
    }

    enum Argument: Sendable {
        case literal(JSONNode)
        case path(JSONPath)
    }

    let name: Name
    let arguments: [Argument]

    /// How Java's `Double.toString` writes a double: `2.0`, `1.5`, `1.0E7`, `1.0E-4`, with the
    /// shortest digits that read back as the same double.
    package static func javaDouble(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        let sign = value.sign == .minus ? "-" : ""
        if value == 0 { return sign + "0.0" }
        // Java writes at least two digits and then takes the closest decimal, where Swift's
        // shortest is one digit: they differ only among the smallest subnormals, of which
        // Double.MIN_VALUE is the one Jayway prints (max() of negative numbers).
        if abs(value) == .leastNonzeroMagnitude { return sign + "4.9E-324" }
        // Swift's description has the shortest digits too; only the layout differs.
        let text = "\(abs(value))"
        let parts = text.split(separator: "e")
        let exponent = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        let mantissa = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        var digits = Array(mantissa[0] + (mantissa.count > 1 ? mantissa[1] : ""))
        var point = mantissa[0].count + exponent
        while digits.first == "0" {
            digits.removeFirst()
            point -= 1
        }
        while digits.last == "0" { digits.removeLast() }
        let scientific = point - 1
        if scientific >= -3 && scientific < 7 {
            if point <= 0 { return sign + "0." + String(repeating: "0", count: -point) + String(digits) }
            if point >= digits.count {
                return sign + String(digits) + String(repeating: "0", count: point - digits.count) + ".0"
            }
            return sign + String(digits[..<point]) + "." + String(digits[point...])
        }
        let rest = digits.count > 1 ? String(digits[1...]) : "0"
        return sign + String(digits[0]) + "." + rest + "E" + String(scientific)
    }

    /// A value as Java's `toString` writes it (json-smart reads decimals as doubles), or nil for
    /// null, which Jayway's string functions skip.
    package static func javaText(_ node: JSONNode) -> String? {
        switch node.value {
        case .null: return nil
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .number(let n):
            return n.text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? javaDouble(n.value) : n.text
        case .array, .object: return JSONSerializer.string(node)
        }
    }

    static func number(_ value: Double) -> JSONNode {
        JSONNode(.number(JSONNumber(text: javaDouble(value), value: value)))
    }
}

extension JSONPathEvaluator {
    /// The function's result for one value, or nil where Jayway throws.
    mutating func call(_ function: JSONPathFunction, on model: JSONNode) -> JSONNode? {
        // Jayway reads every path argument before calling (a missing one is an error).
        var values: [JSONNode] = []
        for argument in function.arguments {
            guard let value = argumentValue(argument) else { return nil }
            values.append(value)
        }
        switch function.name {
        case .length, .size:
            return length(function, model)
        case .min, .max, .avg, .sum, .stddev:
            return aggregate(function.name, model, values)
        case .keys:
            guard case .object(let members) = model.value else { return .null }
            var seen = Set<String>()
            let keys = members.map(\.key).filter { seen.insert($0).inserted }
            return .array(keys.map { .string($0) })
        case .concat:
            var text = ""
            for element in model.elements ?? [] {
                if let s = element.string { text += s }
            }
            for value in values {
                for item in value.elements ?? [value] {
                    if let piece = JSONPathFunction.javaText(item) { text += piece }
                }
            }
            return .string(text)
        case .append:
            guard case .array(let elements) = model.value else { return model }
            return JSONNode(.array(elements + values), at: model.position)
        case .first, .last, .index:
            guard let elements = model.elements else { return nil }
            let target: Int
            switch function.name {
            case .first: target = 0
            case .last: target = -1
            default:
                guard let first = Self.numbers(in: values).first, first.isFinite, abs(first) < 1e9 else { return nil }
                target = Int(first)
            }
            if target >= 0 { return target < elements.count ? elements[target] : nil }
            // Jayway takes an element counted from the end only when it is not the first one.
            let resolved = elements.count + target
            return resolved > 0 ? elements[resolved] : nil
        }
    }

    /// `length()`: an array's or object's count, null for anything else. With a path argument
    /// (`$..book.length()` becomes `$.length($..book)`), the count of the children of what the
    /// path selects from the value.
    private mutating func length(_ function: JSONPathFunction, _ model: JSONNode) -> JSONNode? {
        if let argument = function.arguments.first {
            guard case .path(let path) = argument else { return nil }
            let children = select(path.segments + [.wildcard], from: [model])
            if failed { return nil }
            return .number(children.count)
        }
        switch model.value {
        case .array(let elements): return .number(elements.count)
        case .object(let members): return .number(members.count)
        default: return .null
        }
    }

    /// The numbers of an array value and of the arguments (a list argument gives its elements);
    /// strings and other values are skipped. No number at all is an error.
    private func aggregate(_ name: JSONPathFunction.Name, _ model: JSONNode, _ values: [JSONNode]) -> JSONNode? {
        let numbers = (model.elements ?? []).compactMap { $0.number?.value } + Self.numbers(in: values)
        guard !numbers.isEmpty else { return nil }
        let sum = numbers.reduce(0, +)
        let count = Double(numbers.count)
        switch name {
        case .min: return JSONPathFunction.number(numbers.reduce(Double.greatestFiniteMagnitude) { Swift.min($0, $1) })
        case .max: return JSONPathFunction.number(numbers.reduce(Double.leastNonzeroMagnitude) { Swift.max($0, $1) })
        case .sum: return JSONPathFunction.number(sum)
        case .avg: return JSONPathFunction.number(sum / count)
        default:
            let squares = numbers.reduce(0) { $0 + $1 * $1 }
            return JSONPathFunction.number((squares / count - sum * sum / count / count).squareRoot())
        }
    }

    /// Numbers among values, an array value contributing its elements.
    private static func numbers(in values: [JSONNode]) -> [Double] {
        values.flatMap { value -> [Double] in
            if let elements = value.elements { return elements.compactMap { $0.number?.value } }
            return value.number.map { [$0.value] } ?? []
        }
    }
}
