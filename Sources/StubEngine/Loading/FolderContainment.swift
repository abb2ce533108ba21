#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

/// Whether a path stays inside a folder, by its name (`..`) and by where its symbolic links
/// lead: the one check behind every body file (named in a stub, chosen by a template) and every
/// file a recording writes. A stub folder shared in a repository must not serve `~/.ssh` by
/// accident, nor a recording write there through a linked `__files`.
package struct FolderContainment: Sendable {
    /// The folder as given, and with symbolic links resolved.
    let root: URL
    let resolvedRoot: URL

    package init(root: URL) {
        self.root = root.standardizedFileURL
        self.resolvedRoot = root.resolvingSymlinksInPath().standardizedFileURL
    }

    /// Below the folder by name, once `.` and `..` are taken out.
    func holdsByName(_ url: URL) -> Bool {
        Self.isInside(url.standardizedFileURL, root)
    }

    /// Where `url` leads once its symbolic links are resolved, when that is outside the folder;
    /// nil when it stays inside. The part that does not exist yet (a file about to be written)
    /// is taken as named, below the nearest part that does.
    package func escape(_ url: URL) -> URL? {
        var existing = url.standardizedFileURL
        var missing: [String] = []
        while FileStatus(path: existing.path) == nil, existing.pathComponents.count > 1 {
            missing.insert(existing.lastPathComponent, at: 0)
            existing = existing.deletingLastPathComponent()
        }
        var resolved = existing.resolvingSymlinksInPath()
        for component in missing { resolved.appendPathComponent(component) }
        resolved = resolved.standardizedFileURL
        return Self.isInside(resolved, resolvedRoot) ? nil : resolved
    }

    private static func isInside(_ url: URL, _ folder: URL) -> Bool {
        let folderComponents = folder.pathComponents
        let components = url.pathComponents
        return components.count > folderComponents.count
            && Array(components.prefix(folderComponents.count)) == folderComponents
    }
}
