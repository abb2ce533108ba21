import Foundation
@testable import StubAuthoring
@testable import StubEngine
import TestSupport
import Testing

/// The one folder writer behind recordings and every import: what happens to what the folder
/// holds (`keep`, `refuse`, `replace` for `--force`), and nothing written when the plan would
/// not load.
@Suite struct StubFolderWriterTests {
    func plan(_ name: String, status: Int) -> StubFolderPlan {
        var plan = StubFolderPlan()
        plan.addStubFile(name, [.object([("response", .object([("status", .number(status))]))])])
        return plan
    }

    @Test func keepAddsBesideAndRefusesToReplace() throws {
        let folder = TemporaryFolder()
        folder.write("old.json", #"{"response": {}}"#)
        let written = try StubFolderWriter.write(plan("new.json", status: 201), into: folder.path, existing: .keep)
        #expect(written.paths == ["new.json"] && written.stubCount == 1)
        #expect(FileManager.default.fileExists(atPath: folder.path + "/old.json"))
        #expect(throws: StubFolderWriter.Failure.self) {
            try StubFolderWriter.write(plan("old.json", status: 500), into: folder.path, existing: .keep)
        }
        #expect(try String(contentsOfFile: folder.path + "/old.json", encoding: .utf8) == #"{"response": {}}"#)
    }

    @Test func refuseWantsAnEmptyFolderAndReplaceTakesItsPlace() throws {
        let folder = TemporaryFolder()
        folder.write("old.json", #"{"response": {}}"#)
        do {
            try StubFolderWriter.write(plan("new.json", status: 201), into: folder.path, existing: .refuse)
            Issue.record("wrote into a folder that is not empty")
        } catch {
            #expect(
                error.description.hasSuffix(
                    "is not empty; pick a new folder, or pass --force to replace everything in it"
                )
            )
        }
        let written = try StubFolderWriter.write(plan("new.json", status: 201), into: folder.path, existing: .replace)
        #expect(written.paths == ["new.json"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["new.json"])
        let fresh = folder.url.appendingPathComponent("made/by/the/writer").path
        #expect(try StubFolderWriter.write(plan("a.json", status: 200), into: fresh, existing: .refuse).stubCount == 1)
    }

    @Test func aPlanThatWouldNotLoadWritesNothing() throws {
        let folder = TemporaryFolder()
        var broken = StubFolderPlan()
        broken.files.append(.init(relativePath: "bad.json", bytes: Array(#"{"response": {"status": 700}}"#.utf8)))
        for mode in [StubFolderWriter.ExistingFiles.keep, .replace] {
            #expect(throws: StubFolderWriter.Failure.self) {
                try StubFolderWriter.write(broken, into: folder.path, existing: mode)
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
