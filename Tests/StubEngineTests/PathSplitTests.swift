@testable import StubEngine
import XCTest

/// A request path cut into segments by its bytes when it is ASCII: the same segments as by
/// `Character`s, which every other path still gets.
final class PathSplitTests: XCTestCase {
    /// The cut by `Character`s the byte cut must agree with.
    private func byCharacters(_ path: String) -> [Substring] {
        guard path.hasPrefix("/") else { return [Substring(path)] }
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
    }

    private func firstByCharacters(_ path: String) -> String? {
        path.hasPrefix("/") ? String(path.dropFirst().prefix { $0 != "/" }) : nil
    }

    func testTheSameSegmentsAsByCharacters() {
        let paths = [
            "", "/", "//", "/a", "/a/", "/a//b", "a", "a/b", "/v1/bench-template/7", "/users//café",
            "/\u{301}x/y", "/x/\u{301}y", "/x/\u{301}", "/x\u{301}/y", "/a\r\n/b", "/é/ü", "é/a", "/%2F/x", "/a b/c",
        ]
        for path in paths {
            XCTAssertEqual(PathPattern.split(path), byCharacters(path), path.debugDescription)
            XCTAssertEqual(PathPattern.firstSegment(of: path), firstByCharacters(path), path.debugDescription)
        }
        XCTAssertEqual(
            PathPattern.split("/a/\u{301}b"),
            ["a/\u{301}b"],
            "a combining mark makes its slash no separator"
        )
    }
}
