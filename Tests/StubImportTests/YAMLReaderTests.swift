@testable import StubImport
import StubEngine
import XCTest

final class YAMLReaderTests: XCTestCase {
    func testPlaceholder() throws {
        let node = try YAMLReader.parse("a: 1\n")
        XCTAssertEqual(JSONSerializer.string(node), #"{"a":1}"#)
    }
}
