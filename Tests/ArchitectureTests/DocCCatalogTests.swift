import Foundation
import XCTest

/// StubKit's DocC catalog stays valid without the DocC plugin: every symbol link names a public
/// symbol (the list `scripts/check-api` keeps true), every article link an article, and the
/// root page's topics reach every public type.
final class DocCCatalogTests: XCTestCase {
    private static let catalog = ArchitectureTests.root.appendingPathComponent("Sources/StubKit/StubKit.docc")

    private func publicSymbols() throws -> Set<String> {
        let list = try String(
            contentsOf: ArchitectureTests.root.appendingPathComponent("scripts/stubkit-api.txt"),
            encoding: .utf8
        )
        let lines = list.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        return Set(lines.filter { !$0.isEmpty && !$0.hasPrefix("#") })
    }

    private func articles() throws -> [String: String] {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.catalog.path).filter {
            $0.hasSuffix(".md")
        }
        var texts: [String: String] = [:]
        for file in files {
            texts[String(file.dropLast(3))] = try String(
                contentsOf: Self.catalog.appendingPathComponent(file),
                encoding: .utf8
            )
        }
        return texts
    }

    /// What `pattern`'s first group matches in `text`, code blocks left out.
    private func matches(_ pattern: String, in markdown: String) -> [String] {
        var inCode = false
        let text = markdown.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            if line.hasPrefix("```") {
                inCode.toggle()
                return false
            }
            return !inCode
        }.joined(separator: "\n")
        let regex = try! NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    func testEverySymbolLinkNamesAPublicSymbol() throws {
        let symbols = try publicSymbols()
        let texts = try articles()
        XCTAssertFalse(texts.isEmpty, "no articles in \(Self.catalog.path)")
        for (name, text) in texts {
            for link in matches("``([^`\n]+)``", in: text) where link != "StubKit" {
                let symbol = link.replacingOccurrences(of: "/", with: ".")
                XCTAssertTrue(symbols.contains(symbol), "\(name).md links ``\(link)``, which is no public symbol")
            }
            for article in matches("<doc:([A-Za-z0-9-]+)>", in: text) {
                XCTAssertNotNil(texts[article], "\(name).md links <doc:\(article)>, which is no article")
            }
            XCTAssertTrue(text.hasPrefix("# "), "\(name).md starts with its title")
        }
    }

    func testTheRootPageReachesEveryTypeAndArticle() throws {
        let texts = try articles()
        let root = try XCTUnwrap(texts["StubKit"], "the catalog's root page is StubKit.md")
        XCTAssertTrue(root.hasPrefix("# ``StubKit``\n"))
        let topics = try XCTUnwrap(root.range(of: "## Topics")).upperBound
        let listed = Set(matches("``([^`\n]+)``", in: String(root[topics...])))
        for type in try publicSymbols() where !type.contains(".") {
            XCTAssertTrue(listed.contains(type), "StubKit.md's topics do not list ``\(type)``")
        }
        let linked = Set(matches("<doc:([A-Za-z0-9-]+)>", in: root))
        for article in texts.keys where article != "StubKit" {
            XCTAssertTrue(linked.contains(article), "StubKit.md's topics do not link <doc:\(article)>")
        }
    }
}
