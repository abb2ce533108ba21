import Foundation

/// A fresh folder per test, removed afterwards: tests run in parallel and share nothing.
public final class TemporaryFolder {
    public let url: URL
    public var path: String { url.path }

    public init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("stubserver-tests-\(UUID().uuidString)", isDirectory: true)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    @discardableResult
    public func write(_ relative: String, _ contents: String) -> URL {
        let file = url.appendingPathComponent(relative)
        try! FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try! Data(contents.utf8).write(to: file)
        return file
    }
}
