#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

/// The tool behind the `EmbedAssets` build-tool plugin: text files (HTML, CSS, JavaScript)
/// become string constants of one Swift enum, so a module serves them from memory and the
/// binary stays one file that can be copied anywhere (a resource bundle would have to travel
/// beside it).
///
///     AssetEmbedder OUTPUT.swift ENUM FILE...
///
/// Each file becomes a raw multi-line string literal holding exactly its bytes, named after the
/// file: `index.html` is `indexHTML`, `app.js` is `appJS`. A file that is not UTF-8 text with
/// LF line endings is refused with its place: Swift would change or refuse those bytes.
@main
struct AssetEmbedder {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 2 else {
            fail("usage: AssetEmbedder OUTPUT.swift ENUM FILE...")
        }
        let output = arguments[0]
        let enumName = arguments[1]
        var source = "// Made by the EmbedAssets build-tool plugin from the files named below: edit those.\n\n"
        source += "enum \(enumName) {\n"
        for path in arguments.dropFirst(2).sorted() {
            guard let data = FileManager.default.contents(atPath: path) else {
                fail("\(path): cannot be read")
            }
            let text: String
            do {
                text = try checkedText(Array(data))
            } catch {
                fail("\(path):\(error.line):\(error.column): \(error.message)")
            }
            let name = identifier(forFileNamed: String(path.split(separator: "/").last ?? ""))
            source += "    /// `\(path.split(separator: "/").suffix(2).joined(separator: "/"))`, \(data.count) bytes.\n"
            source += "    static let \(name) = \(literal(text))\n"
        }
        source += "}\n"
        do {
            try Data(source.utf8).write(to: URL(fileURLWithPath: output))
        } catch {
            fail("\(output): cannot be written: \(error)")
        }
    }

    struct Refusal: Error {
        let line: Int
        let column: Int
        let message: String
    }

    /// The file's text, if a raw string literal can hold exactly its bytes: UTF-8, and no
    /// control character but tab and line feed (a literal turns CR LF into LF, and refuses NUL).
    static func checkedText(_ bytes: [UInt8]) throws(Refusal) -> String {
        var line = 1
        var column = 1
        for byte in bytes {
            if byte == 0x0A {
                line += 1
                column = 1
                continue
            }
            if byte < 0x20 && byte != 0x09 || byte == 0x7F {
                let message = byte == 0x0D ? "a carriage return: use LF line endings" : "control character \(byte)"
                throw Refusal(line: line, column: column, message: message)
            }
            column += 1
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Refusal(line: 1, column: 1, message: "not UTF-8 text")
        }
        return text
    }

    /// `index.html` to `indexHTML`: the name before the first dot, then each extension in
    /// capitals, anything but letters and digits dropped.
    static func identifier(forFileNamed name: String) -> String {
        let parts: [String] = name.split(separator: ".").map { part in
            String(part.filter { $0.isASCII && ($0.isLetter || $0.isNumber) })
        }
        var result = parts.first ?? "asset"
        for part in parts.dropFirst() {
            result += part.uppercased()
        }
        if result.first?.isNumber ?? true {
            result = "asset" + result
        }
        return result
    }

    /// A raw multi-line literal with one more `#` than the longest run in the text, so nothing
    /// in it can end the literal or start an escape. The line feed before the closing
    /// delimiter is not part of the string, so a text ending in a line feed keeps it.
    static func literal(_ text: String) -> String {
        var longestRun = 0
        var run = 0
        for byte in text.utf8 {
            run = byte == UInt8(ascii: "#") ? run + 1 : 0
            longestRun = max(longestRun, run)
        }
        let hashes = String(repeating: "#", count: longestRun + 1)
        return hashes + "\"\"\"\n" + text + "\n\"\"\"" + hashes
    }

    static func fail(_ message: String) -> Never {
        StandardStreams.err(Array("AssetEmbedder: \(message)\n".utf8))
        ProcessExit.exit(1)
    }
}
