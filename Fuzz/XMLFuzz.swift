// libFuzzer target for the XML reader and the XPath subset behind WireMock's `xPath` template
// helper (request bodies are outside input). Not part of the package (SwiftPM ignores this
// folder): scripts/fuzz compiles this file together with Sources/XML as one module.
//
// Input: an XPath expression, then a 0xFF byte (never in UTF-8), then an XML document. Without
// a separator the whole input is the document and fixed expressions are used.
//
// Invariants (a violation is a precondition failure, which libFuzzer saves as a crash):
//  1. reading never traps; a refusal has a message and a line and column inside the text;
//  2. a document that reads, written back (`xml`), reads again and writes the same text;
//  3. compiling an expression never traps; a refusal has an offset inside the expression;
//  4. evaluating never traps, stays within its limit, and gives the same answer twice;
//  5. every element `//*` selects is written inside the document's own writing.
import Foundation

private let fixedExpressions = ["/*", "//*", "//text()", "//@*", "/*/*[1]", "//*[last()]/..", "//*[@id='1']/text()"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let separator = input.firstIndex(of: 0xFF)
    let documentBytes = separator.map { input[($0 + 1)...] } ?? input[...]
    let text = String(decoding: documentBytes, as: UTF8.self)
    var expressions = fixedExpressions
    if let separator { expressions.insert(String(decoding: input[..<separator], as: UTF8.self), at: 0) }

    let root: XMLElementNode
    do {
        root = try XMLReader.parse(text)
    } catch {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        precondition(!error.message.isEmpty, "a refusal without a message")
        precondition(error.line >= 1 && error.line <= lines && error.column >= 1, "place \(error) outside the text")
        return 0
    }
    let written = root.xml
    guard let again = try? XMLReader.parse(written) else {
        preconditionFailure("the writing does not read back: \(written)")
    }
    precondition(again.xml == written, "writing twice differs: \(written) then \(again.xml)")

    for source in expressions {
        let path: XPathExpression
        do {
            path = try XPathExpression(source)
        } catch {
            precondition(
                !error.message.isEmpty && error.offset >= 0 && error.offset <= source.count,
                "refusal \(error) outside \(source.count) characters"
            )
            continue
        }
        let items = path.evaluate(root, limit: 64)
        precondition(items.count <= 64, "\(source) gave \(items.count) items past its limit")
        precondition(describe(items) == describe(path.evaluate(root, limit: 64)), "two evaluations of \(source) differ")
        if source == "//*" {
            for case .element(let element) in items {
                precondition(
                    written.contains(element.xml),
                    "//* selected an element not in the document: \(element.xml)"
                )
            }
        }
    }
    return 0
}

private func describe(_ items: [XPathExpression.Item]) -> String {
    items.map { item -> String in
        switch item {
        case .element(let element): return "e" + element.xml
        case .text(let text): return "t" + text
        case .attribute(let name, let value): return "a\(name)=\(value)"
        }
    }.joined(separator: "\u{1}")
}
