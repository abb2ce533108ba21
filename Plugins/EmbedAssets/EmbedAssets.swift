import Foundation
import PackagePlugin

/// Turns a module's `Assets/` folder (the inspector's HTML, CSS and JavaScript) into Swift at
/// build time: one enum, `EmbeddedAssets`, with a string constant per file (`AssetEmbedder`
/// writes it). The files stay what they are, to read, diff and check as HTML, CSS and
/// JavaScript, while the binary stays one file with no resource bundle beside it.
///
/// The module excludes `Assets/` in Package.swift (SwiftPM would otherwise warn that it does
/// not know the files), so the plugin lists the folder itself; every file in it is an input,
/// so changing one rebuilds the module.
@main
struct EmbedAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let module = target as? SwiftSourceModuleTarget else { return [] }
        let folder = module.directoryURL.appending(path: "Assets")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { !$0.hasPrefix(".") }
            .sorted()
        let inputs = names.map { folder.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedAssets.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(target.name)'s assets: \(names.joined(separator: ", "))",
                executable: try context.tool(named: "AssetEmbedder").url,
                arguments: [output.path, "EmbeddedAssets"] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output]
            )
        ]
    }
}
