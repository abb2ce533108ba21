import StubImport

/// The last step `import openapi` and `import har` share: the plan's problems, the folder
/// written (and loaded back) by `ImportFolderWriter`, the loader's warnings. nil when nothing
/// was written (the reason is on stderr), else what was written.
func writeImport(
    _ plan: ImportPlan,
    to output: String,
    replace: Bool,
    _ console: Console
) -> ImportFolderWriter.Written? {
    for problem in plan.problems { console.err(problem.description) }
    switch ImportFolderWriter.write(plan, to: output, replace: replace) {
    case .failure(let failure):
        console.err("stubserver: \(failure.message)")
        return nil
    case .success(let written):
        for problem in written.problems { console.err(problem.description) }
        return written
    }
}
