#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import NativeStubs
import StubAuthoring
import StubEngine

/// `stubserver import wiremock DIR --out DIR`: a WireMock folder as native stub files. Each
/// mapping file becomes one stub file (the mappings it holds, in order); body files are copied
/// into `__files/`. The folder is read and compiled into stubs by the same loader that serves
/// it (`WireMockStubBuilder`), and those stubs are written by the engine's encoder
/// (`StubEncoder.encodeModel`): one translation, so what does not load there is not imported
/// here either, and what loads answers alike. Everything the stub format cannot say is listed, with
/// its file, line, column and JSON path, as dropped (the stub matches or answers more loosely)
/// or approximated (close, not the same).
package enum WireMockImporter {
    package struct Note: Sendable, CustomStringConvertible {
        package enum Kind: String, Sendable { case dropped, approximated, skipped }
        package let kind: Kind
        package let file: String
        package let position: SourcePosition?
        package let jsonPath: String
        package let message: String

        package var description: String {
            "\(file)\(position.map { ":\($0.line):\($0.column)" } ?? ""): \(kind.rawValue): \(jsonPath): \(message)"
        }
    }

    package struct Result: Sendable {
        package var plan = StubFolderPlan()
        package var notes: [Note] = []
        /// The folder's own problems (a mapping with an error is not imported).
        package var problems: [StubProblem] = []
        /// Mappings not imported because of their errors (the server skips them too).
        package var skipped: [SkippedMapping] = []
        package var mappingCount = 0
        package var fileCount = 0
        /// Where each written stub came from: `stub-file.json#0` to the mapping file and the
        /// mapping's JSON path in it (`mappings/a.json $.mappings[2]`).
        package var origins: [String: (file: String, jsonPath: String)] = [:]
    }

    /// Plans the files; nothing is written (`StubFolderWriter` writes the plan).
    /// `existing` are the names already in the output folder and its `__files/`.
    package static func plan(
        folder: String,
        existing: (stubs: Set<String>, bodies: Set<String>) = ([], []),
        globalTemplating: Bool = false
    ) -> Result {
        let loader = WireMockFolderLoader(
            directory: URL(fileURLWithPath: folder, isDirectory: true),
            displayName: folder,
            globalTemplating: globalTemplating
        )
        var files: [(file: WireMockFolderLoader.MappingFile, stubs: [JSONNode], paths: [String])] = []
        var result = Result()
        var bodyFiles = BodyFilePlanner(reserving: existing.bodies)
        var written: [Written] = []
        let load = loader.build(defaultName: { _, _, mapping in mapping.name ?? mapping.summary }) { file, m, stub in
            if files.last?.file.displayPath != file.displayPath { files.append((file, [], [])) }
            let encoding = StubEncoder.encodeModel(stub, places: places) { bytes in
                guard case .file(let name, let fileBytes) = m.response.body, fileBytes == bytes else { return nil }
                return bodyFiles.path(for: name, bytes)
            }
            if case .missingFile(let name) = m.response.body {
                // What `--wiremock` answers for it (WireMock's 500): the stub keeps the behaviour,
                // and the note says the file is missing.
                result.notes.append(
                    note(
                        .approximated,
                        file,
                        m,
                        ["response", "bodyFileName"],
                        """
                        bodyFileName \"\(name)\" is not in __files/: the stub answers 500, as the mapping does \
                        when served
                        """
                    )
                )
            }
            result.notes += encoding.gaps.map { gap in
                note(Note.Kind(rawValue: gap.kind.rawValue) ?? .dropped, file, m, gap.place, gap.message)
            }
            if let node = encoding.node, let rank = encoding.rank {
                let exact = !encoding.gaps.contains { $0.place.first == "request" }
                written.append(
                    Written(
                        file: file,
                        mapping: m,
                        stub: stub,
                        request: node["request"] ?? node,
                        rank: rank,
                        exact: exact
                    )
                )
                files[files.count - 1].stubs.append(node)
                files[files.count - 1].paths.append(m.path)
            }
        }
        result.notes += tieNotes(written)
        result.problems = load.problems
        result.skipped = load.skipped
        result.fileCount = load.fileCount
        result.plan.files = bodyFiles.files
        var stubNames = FileNameAllocator(reserving: existing.stubs)
        for (file, stubs, paths) in files where !stubs.isEmpty {
            result.mappingCount += stubs.count
            let base = FileNameAllocator.slug(
                (file.relativePath.hasPrefix("mappings/") ? String(file.relativePath.dropFirst(9)) : file.relativePath)
                    .replacing(".json", with: ""),
                fallback: "mapping"
            )
            let name = stubNames.allocate(base, extension: "json")
            result.plan.addStubFile(name, stubs)
            for (index, path) in paths.enumerated() { result.origins["\(name)#\(index)"] = (file.displayPath, path) }
        }
        return result
    }

    /// A stub written, with what deciding ties needs.
    private struct Written {
        let file: WireMockFolderLoader.MappingFile
        let mapping: WireMockMapping
        let stub: Stub
        /// The request as written, and its rank when the written file is loaded.
        let request: JSONNode
        let rank: StubRank
        /// The request was written with nothing dropped or approximated: what it matches as
        /// written is what it matched in WireMock.
        let exact: Bool
    }

    /// Of two mappings of equal priority, WireMock answers a request both match with the more
    /// recently added (the later one); the stub format with the more specific stub, then the
    /// earlier. Where a later mapping matches every request an earlier one does, the earlier
    /// never answers under WireMock, and the stub format answers those requests with it: the
    /// earlier one is named. (Two mappings that match some requests in common, each with
    /// conditions of its own, are not looked for.)
    private static func tieNotes(_ written: [Written]) -> [Note] {
        var notes: [Note] = []
        for (earlier, a) in written.enumerated() where a.exact {
            for b in written[(earlier + 1)...]
            where b.exact && a.stub.priority == b.stub.priority && !(b.rank < a.rank) && covers(b, a) {
                notes.append(
                    note(
                        .approximated,
                        a.file,
                        a.mapping,
                        [],
                        """
                        WireMock answers every request this mapping matches with \(b.file.relativePath) \
                        \(b.mapping.path) (the later of equal priority), so it never answers there; the stub \
                        format answers them with this one, the more specific or earlier: give that stub a lower \
                        priority to keep WireMock's choice
                        """
                    )
                )
                break
            }
        }
        return notes
    }

    /// Whether every request `a` matches, `b` matches too: judged on what both stubs check as
    /// written (method, path, scenario state, the other request keys), of requests written
    /// exactly.
    private static func covers(_ b: Written, _ a: Written) -> Bool {
        let (sa, sb) = (a.stub, b.stub)
        if let mb = sb.request.methods {
            guard let ma = sa.request.methods, Set(ma).isSubset(of: mb) else { return false }
        }
        if let when = sb.scenario?.when {
            guard sa.scenario?.name == sb.scenario?.name, sa.scenario?.when == when else { return false }
        }
        if let pb = sb.request.path {
            guard let pa = sa.request.path else { return false }
            if let literal = pa.literalPath {
                guard pb.match(literal, segments: PathPattern.split(literal)) != nil else { return false }
            } else if pa.source != pb.source || pa.isRegex != pb.isRegex {
                return false
            }
        } else {
            // A path written from a condition (a `urlPattern` split at its query): the same one.
            for key in ["path", "pathPattern"] where b.request[key] != nil {
                guard let other = a.request[key], other.isSame(as: b.request[key]!) else { return false }
            }
        }
        for member in b.request.members ?? [] where !["method", "path", "pathPattern"].contains(member.key) {
            guard let other = a.request[member.key] else { return false }
            if ["query", "headers"].contains(member.key) {
                for condition in member.value.members ?? [] {
                    guard let same = other[condition.key], same.isSame(as: condition.value) else { return false }
                }
            } else if !other.isSame(as: member.value) {
                return false
            }
        }
        return true
    }

    /// Where WireMock writes the parts the engine models for it, for the notes about them.
    private static let places: StubEncoder.Places = {
        var places = StubEncoder.Places()
        places.reason = ["response", "statusMessage"]
        places.delay = ["response", "delayDistribution"]
        places.fault = ["response", "fault"]
        places.scenario = ["scenarioName"]
        return places
    }()

    private static func note(
        _ kind: Note.Kind,
        _ file: WireMockFolderLoader.MappingFile,
        _ mapping: WireMockMapping,
        _ place: [DefinitionStep],
        _ message: String
    ) -> Note {
        let position = DefinitionStep.locate(place, in: mapping.node)?.position ?? mapping.node.position
        return Note(
            kind: kind,
            file: file.displayPath,
            position: position,
            jsonPath: mapping.path + DefinitionStep.path(place),
            message: message
        )
    }

    /// The body files of `__files/` the stubs name, copied once each under a file name of the
    /// stub folder's kind.
    private struct BodyFilePlanner {
        var names: FileNameAllocator
        var copied: [String: String] = [:]
        var files: [StubFolderPlan.File] = []

        init(reserving existing: Set<String>) {
            names = FileNameAllocator(reserving: existing)
        }

        mutating func path(for name: String, _ bytes: [UInt8]) -> String {
            if let done = copied[name] { return done }
            let (stem, ext) = WireMockImporter.splitExtension(name)
            let base = FileNameAllocator.slug(stem, fallback: "body")
            let fileExtension = FileNameAllocator.slug(ext.isEmpty ? "bin" : ext.lowercased(), fallback: "bin")
            let allocated = "__files/" + names.allocate(base, extension: fileExtension)
            files.append(StubFolderPlan.File(relativePath: allocated, bytes: bytes))
            copied[name] = allocated
            return allocated
        }
    }

    /// `dir/name.ext` as `dir/name` and `ext`: the extension is what follows the last dot of
    /// the last path component, when that dot is not its first character.
    static func splitExtension(_ name: String) -> (stem: String, ext: String) {
        let lastComponent = name.lastIndex(of: "/").map { name.index(after: $0) } ?? name.startIndex
        guard let dot = name[lastComponent...].lastIndex(of: "."), dot > lastComponent else { return (name, "") }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }
}

extension JSONNode {
    /// The same value, wherever it was written.
    fileprivate func isSame(as other: JSONNode) -> Bool {
        JSONSerializer.string(self) == JSONSerializer.string(other)
    }
}
