import Foundation
#if canImport(Testing)
import Testing
#endif
#if canImport(XCTest)
import XCTest
#endif

/// Fails the test that is running, in whichever framework runs it: Swift Testing when a test of
/// its is current (an issue at the caller's source location), else XCTest (`XCTFail`), else
/// (neither is linked) the message goes to standard error.
enum TestIssue {
    static func record(_ message: String, fileID: String, filePath: StaticString, line: UInt, column: UInt) {
        #if canImport(Testing)
        if Test.current != nil {
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: SourceLocation(
                    fileID: fileID,
                    filePath: "\(filePath)",
                    line: Int(line),
                    column: Int(column)
                )
            )
            return
        }
        #endif
        #if canImport(XCTest)
        XCTFail(message, file: filePath, line: line)
        #else
        FileHandle.standardError.write(Data("\(filePath):\(line): verification failed: \(message)\n".utf8))
        #endif
    }
}
