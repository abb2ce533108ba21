import JSON
import StubAuthoring
import StubEngine

/// What an import will write: stub files (encoded by `StubEncoder`) and body files, by path
/// relative to the output folder, with the counts and problems its summary reports. Building a
/// plan touches no disk, so the same plan is written by the command, tested and fuzzed.
package struct ImportPlan: Sendable {
    /// The files, planned as recording plans them (one encoder, one naming rule for every writer).
    package var output = StubFolderPlan()
    package var problems: [ImportProblem] = []

    package init() {}

    package var files: [StubFolderPlan.File] {
        get { output.files }
        set { output.files = newValue }
    }
    package var stubCount: Int { output.stubCount }
    package var stubFiles: [StubFolderPlan.File] { output.stubFiles }
    package var bodyFiles: [StubFolderPlan.File] { output.bodyFiles }
    package var errors: [ImportProblem] { problems.filter { $0.severity == .error } }

    /// Adds a stub file holding `stubs` (one stub object, or an array of them).
    package mutating func addStubFile(_ relativePath: String, _ stubs: [JSONNode]) {
        output.addStubFile(relativePath, stubs)
    }
}
