#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import SystemSupport

/// The documents of one import or check: the one the user named and every local file its `$ref`s
/// reach, each read once, and the problems met resolving references. `#/...` pointers, `#name`
/// anchors (`$anchor`) and relative file paths (`common.yaml#/Error`) resolve; remote references
/// (`https://...`) are refused with the place that names them: an import must not fetch from the
/// network behind the user's back, and its result must not depend on what a server says today.
///
/// A reference that cannot be resolved is a problem recorded once per place, never fatal: the
/// walkers treat what it stands for as absent, so one bad `$ref` costs one operation or one
/// schema, not the import. A class because the walkers of one run (operations, sampler,
/// validator) share what it has read and indexed; it is used from one thread.
package final class DocumentSet {
    package struct Document {
        /// As shown in messages: a path relative to the working directory, as the user typed it.
        package let displayName: String
        /// As shown in schema locations: "" for the root, else the path relative to its folder.
        package let locationName: String
        package let path: String?
        package let root: JSONNode
    }

    package private(set) var documents: [Document] = []
    package private(set) var problems: [DocumentProblem] = []
    /// Read `$ref`s to absolute paths and to files outside the root document's folder
    /// (`--allow-ref-outside`); each one read is noted. Off, they are refused: `$ref:
    /// /etc/shadow` or `../secret.json` in a document from elsewhere was read without a word.
    package var allowsReferencesOutside = false
    private var indexByPath: [String: Int] = [:]
    private var failedPaths: Set<String> = []
    private var insideByPath: [String: Bool] = [:]
    private var reportedPlaces: Set<String> = []
    /// Key indexes of large objects (`components/schemas` with thousands of entries), so a
    /// pointer step is a dictionary lookup rather than a scan.
    private var keyIndexes: [NodeLocation: [String: Int]] = [:]
    private var anchorIndexes: [Int: [String: String]] = [:]

    /// A document given as a value; `path` (when it came from a file) is the base of relative references.
    package init(root: JSONNode, displayName: String, path: String?) {
        documents = [
            Document(displayName: displayName, locationName: "", path: path.map(Self.standardized), root: root)
        ]
        if let path { indexByPath[Self.standardized(path)] = 0 }
    }

    /// Reads the document at `path`; a file that cannot be read or parsed is the one fatal problem.
    package static func open(path: String) -> Result<DocumentSet, DocumentProblem> {
        DocumentReader.read(path: path, name: path).map { DocumentSet(root: $0, displayName: path, path: path) }
    }

    package var root: LocatedNode { LocatedNode(documents[0].root, location(0, "")) }

    package func displayName(of location: NodeLocation) -> String { documents[location.document].displayName }

    private func location(_ document: Int, _ pointer: String) -> NodeLocation {
        NodeLocation(document: document, pointer: pointer, documentName: documents[document].locationName)
    }

    // MARK: Problems

    /// Records a problem at a value of a document, once per place and severity.
    package func report(_ severity: DocumentProblem.Severity, _ message: String, at node: LocatedNode) {
        let place = "\(node.location.document):\(node.node.position):\(severity):\(message.prefix(24))"
        guard reportedPlaces.insert(place).inserted else { return }
        problems.append(
            DocumentProblem(
                severity,
                file: displayName(of: node.location),
                position: node.node.position,
                message: message
            )
        )
    }

    package func record(_ problem: DocumentProblem) { problems.append(problem) }

    // MARK: References

    /// The value `node`'s `$ref` names (one step), or nil after recording why not.
    package func resolveReference(of node: LocatedNode) -> LocatedNode? {
        guard let refNode = node["$ref"] else { return node }
        guard let ref = refNode.string else {
            report(
                .error,
                "$ref must be a string (a JSON pointer such as \"#/components/schemas/Pet\" or a file path)",
                at: refNode
            )
            return nil
        }
        let hash = ref.firstIndex(of: "#")
        let filePart = String(hash.map { ref[..<$0] } ?? ref[...])
        let fragment = hash.map { String(ref[ref.index(after: $0)...]) } ?? ""
        var document = node.location.document
        if !filePart.isEmpty {
            guard let target = openReferencedFile(filePart, ref: ref, from: node.location.document, refNode: refNode)
            else { return nil }
            document = target
        }
        let decoded = PercentDecoding.decodeLenient(fragment)
        if decoded.isEmpty || decoded.hasPrefix("/") {
            return lookup(pointer: decoded, in: document, ref: ref, refNode: refNode)
        }
        guard let pointer = anchors(of: document)[decoded] else {
            report(
                .error,
                """
                $ref \"\(ref)\" names the anchor \"\(decoded)\", which no \"$anchor\" in \
                \(documents[document].displayName) defines
                """,
                at: refNode
            )
            return nil
        }
        return lookup(pointer: pointer, in: document, ref: ref, refNode: refNode)
    }

    /// Follows a chain of references (a response that refers to a response that refers to ...)
    /// to the object at its end. A chain that comes back on itself is cut with a warning.
    package func dereference(_ node: LocatedNode) -> LocatedNode? {
        var current = node
        var seen: Set<NodeLocation> = []
        while current.node["$ref"] != nil {
            guard seen.insert(current.location).inserted else {
                report(
                    .warning,
                    "this $ref chain comes back to itself without reaching a value; it is cut (treated as absent)",
                    at: node["$ref"] ?? node
                )
                return nil
            }
            guard let next = resolveReference(of: current) else { return nil }
            current = next
        }
        return current
    }

    private func openReferencedFile(_ filePart: String, ref: String, from document: Int, refNode: LocatedNode) -> Int? {
        if let colon = filePart.firstIndex(of: ":"),
            filePart[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+.-".contains($0) }),
            filePart[..<colon].count > 1
        {
            let scheme = filePart[..<colon].lowercased()
            if scheme == "http" || scheme == "https" {
                report(
                    .error,
                    """
                    $ref \"\(ref)\" is remote: stubserver reads local files only and never fetches while \
                    importing; download it next to the document and refer to the copy by a relative path
                    """,
                    at: refNode
                )
            } else {
                report(
                    .error,
                    """
                    $ref \"\(ref)\" is neither a pointer (\"#/...\") nor a relative file path; stubserver \
                    resolves only those
                    """,
                    at: refNode
                )
            }
            return nil
        }
        guard let base = documents[document].path else {
            report(
                .error,
                """
                $ref \"\(ref)\" names a file, but this document was not read from a file, so there is no folder \
                to find it in
                """,
                at: refNode
            )
            return nil
        }
        let relative = PercentDecoding.decodeLenient(filePart)
        let url =
            relative.hasPrefix("/")
            ? URL(fileURLWithPath: relative)
            : URL(fileURLWithPath: base).deletingLastPathComponent().appendingPathComponent(relative)
        let path = Self.standardized(url.path)
        let outside = relative.hasPrefix("/") || !isInRootFolder(path)
        if outside && !allowsReferencesOutside {
            let why = relative.hasPrefix("/") ? "an absolute path" : "outside the document's folder"
            report(
                .error,
                "$ref \"\(ref)\" is \(why) (\(path)); it is not read unless --allow-ref-outside is given",
                at: refNode
            )
            return nil
        }
        if let index = indexByPath[path] { return index }
        let names = names(for: path)
        if failedPaths.contains(path) { return nil }
        switch DocumentReader.read(path: path, name: names.display) {
        case .success(let root):
            if outside {
                report(
                    .note,
                    "read \(path), outside the document's folder (--allow-ref-outside), for $ref \"\(ref)\"",
                    at: refNode
                )
            }
            documents.append(Document(displayName: names.display, locationName: names.location, path: path, root: root))
            indexByPath[path] = documents.count - 1
            return documents.count - 1
        case .failure(let problem):
            failedPaths.insert(path)
            report(
                .error,
                """
                $ref \"\(ref)\": \(names.display) \
                \(problem.position == nil ? problem.message : "cannot be read: " + problem.description)
                """,
                at: refNode
            )
            return nil
        }
    }

    /// Whether `path` (standardised) is below the root document's folder, links resolved; once
    /// per path (resolving links costs system calls, and a document refers to a file many times).
    private func isInRootFolder(_ path: String) -> Bool {
        if let known = insideByPath[path] { return known }
        let inside = resolvesIntoRootFolder(path)
        insideByPath[path] = inside
        return inside
    }

    private func resolvesIntoRootFolder(_ path: String) -> Bool {
        guard let rootPath = documents[0].path else { return false }
        let folder = URL(fileURLWithPath: rootPath).deletingLastPathComponent()
            .resolvingSymlinksInPath().standardizedFileURL
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL
        let prefix = folder.pathComponents
        return target.pathComponents.count > prefix.count && Array(target.pathComponents.prefix(prefix.count)) == prefix
    }

    /// A referenced file's names: relative to the root document's folder when inside it.
    private func names(for path: String) -> (display: String, location: String) {
        guard let rootPath = documents[0].path else { return (path, path) }
        let rootFolder = URL(fileURLWithPath: rootPath).deletingLastPathComponent().path
        guard path.hasPrefix(rootFolder + "/") else { return (path, path) }
        let relative = String(path.dropFirst(rootFolder.count + 1))
        let typedFolder = URL(fileURLWithPath: documents[0].displayName).deletingLastPathComponent()
        let display = documents[0].displayName.contains("/") ? typedFolder.relativePath + "/" + relative : relative
        return (documents[0].displayName.hasPrefix("/") ? path : display, relative)
    }

    private func lookup(pointer: String, in document: Int, ref: String, refNode: LocatedNode) -> LocatedNode? {
        guard let parsed = JSONPointer(pointer) else {
            report(.error, "$ref \"\(ref)\": \(JSONPointer.problem(in: pointer) ?? "not a JSON pointer")", at: refNode)
            return nil
        }
        var current = LocatedNode(documents[document].root, location(document, ""))
        for token in parsed.tokens {
            if let members = current.node.members {
                guard let index = memberIndex(token, members, current.location) else {
                    var message = "$ref \"\(ref)\" leads nowhere: \(current.location.description) has no \"\(token)\""
                    if let near = Suggestion.closest(to: token, among: members.prefix(500).map(\.key)) {
                        message += "; did you mean \"\(near)\"?"
                    }
                    report(.error, message, at: refNode)
                    return nil
                }
                current = LocatedNode(members[index].value, current.location.appending(token))
            } else if let elements = current.node.elements, let index = JSONPointer.arrayIndex(token),
                index < elements.count
            {
                current = LocatedNode(elements[index], current.location.appending(index))
            } else {
                // RFC 6901: "01" is no array index (an index has no leading zeros).
                let leadingZero =
                    current.node.elements != nil && token.count > 1 && token.hasPrefix("0")
                    && token.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
                report(
                    .error,
                    """
                    $ref \"\(ref)\" leads nowhere: \(current.location.description) is \
                    \(current.node.kindDescription), with no \"\(token)\" in it\
                    \(leadingZero ? " (an array index has no leading zeros)" : "")
                    """,
                    at: refNode
                )
                return nil
            }
        }
        return current
    }

    private func memberIndex(_ key: String, _ members: [JSONNode.Member], _ location: NodeLocation) -> Int? {
        guard members.count > 16 else { return members.lastIndex { $0.key == key } }
        if let index = keyIndexes[location] { return index[key] }
        var index: [String: Int] = [:]
        for (i, member) in members.enumerated() { index[member.key] = i }
        keyIndexes[location] = index
        return index[key]
    }

    /// `$anchor` names of a document to their pointers, indexed on first use.
    private func anchors(of document: Int) -> [String: String] {
        if let known = anchorIndexes[document] { return known }
        var found: [String: String] = [:]
        var stack: [(JSONNode, String)] = [(documents[document].root, "")]
        while let (node, pointer) = stack.popLast() {
            if let members = node.members {
                if let anchor = node["$anchor"]?.string, found[anchor] == nil { found[anchor] = pointer }
                for member in members { stack.append((member.value, pointer + "/" + JSONPointer.escape(member.key))) }
            } else if let elements = node.elements {
                for (i, element) in elements.enumerated() { stack.append((element, pointer + "/\(i)")) }
            }
        }
        anchorIndexes[document] = found
        return found
    }

    private static func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
