#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import Handlebars
import JSON
import SystemSupport
import RegularExpressions
import StubEngine

/// A WireMock stub mapping as read and checked: every pattern compiled, every body read, every
/// problem reported with its place. Serving builds a `Stub` from it (`WireMockStubBuilder`);
/// the importer writes native stub files from it.
package struct WireMockMapping: Sendable {
    package var id: String?
    package var name: String?
    package var priority = 5
    package var request = WireMockRequest()
    package var response = WireMockResponse()
    package var scenario: ScenarioRule?
    /// `serveEventListeners` and `postServeActions` webhooks (other listeners are not run).
    package var webhooks: [WireMockWebhook] = []
    /// The mapping as written, for the admin API.
    package var node: JSONNode
    /// Its JSON path in its file (`$`, `$.mappings[2]`), for messages.
    package var path: String

    /// `GET /hello`: the name of a mapping without one, served (runtime mappings) or imported.
    package var summary: String {
        let method = request.methods?.joined(separator: "|") ?? "ANY"
        switch request.url {
        case .url(let s)?, .urlPath(let s)?, .urlPathTemplate(let s, _)?: return "\(method) \(s)"
        case .urlPattern(let r)?, .urlPathPattern(let r)?: return "\(method) \(r.pattern)"
        case nil: return "\(method) (any URL)"
        }
    }
}

package struct WireMockRequest: Sendable {
    /// nil is ANY.
    package var methods: [String]?
    /// `method: {"noneOf": [...]}`.
    package var excludedMethods: [String] = []
    package var url: URLMatch?
    package var pathParameters: [(name: String, pattern: ContentPattern)] = []
    package var query: [(name: String, pattern: MultiValuePattern)] = []
    package var headers: [(name: String, pattern: MultiValuePattern)] = []
    package var cookies: [(name: String, pattern: MultiValuePattern)] = []
    package var form: [(name: String, pattern: MultiValuePattern)] = []
    package var basicAuth: (username: String, password: String)?
    package var body: [ContentPattern] = []
    package var multipart: [WireMockMultipartPattern] = []
    package var host: ContentPattern?
    package var port: Int?
    package var scheme: String?
    package var clientIp: String?
    /// Conditions stubserver cannot evaluate (custom matchers): the mapping never
    /// matches while they are there, and each was a warning at load.
    package var unsupported: [String] = []

    package enum URLMatch: Sendable {
        /// `url`: path and query exactly as sent.
        case url(String)
        /// `urlPattern`: a regular expression over path and query as sent.
        case urlPattern(CompiledRegex)
        /// `urlPath`: the path, exactly (compared after percent-decoding).
        case urlPath(String)
        /// `urlPathPattern`: a regular expression over the path.
        case urlPathPattern(CompiledRegex)
        /// `urlPathTemplate`: `/users/{id}`, compiled to a segment pattern.
        case urlPathTemplate(String, PathPattern)
    }
}

package struct WireMockResponse: Sendable {
    package var status = 200
    package var statusMessage: String?
    package var headers: [(name: String, value: String)] = []
    package var body = Body.none
    package var fixedDelay: Int?
    package var delayDistribution: Delay?
    package var dribble: Dribble?
    package var fault: Fault?
    package var proxy: ProxyRule?
    /// The `response-template` transformer (or global templating) applies.
    package var templated = false
    /// `transformerParameters`, visible to templates as `parameters`.
    package var transformerParameters: JSONNode?
    /// Where the body and each header value were written (`body`, `headers.X-Id`), for
    /// template messages.
    package var positions: [String: SourcePosition] = [:]

    package enum Body: Sendable {
        case none
        case text(String)
        case json(JSONNode)
        case bytes([UInt8])
        /// `bodyFileName`, read at load (relative to `__files`).
        case file(name: String, bytes: [UInt8])
        /// A `bodyFileName` that is itself a template: chosen per request among `__files`.
        case templatedFile(HandlebarsTemplate)
        /// A `bodyFileName` that is not in `__files`: WireMock serves the mapping and fails each
        /// request it answers with 500 (its message "Not found in blob store: NAME").
        case missingFile(name: String)
    }

    /// What a request answered by a mapping whose body file is missing gets: WireMock's status
    /// and message, none of the mapping's headers, delays or faults (WireMock fails before them).
    package static func missingFileAnswer(_ name: String) -> PreparedResponse {
        var headers = HeaderFields()
        headers.add("Content-Type", "text/plain; charset=utf-8")
        let message = "Not found in blob store: \(name)\n(stubserver: this mapping's bodyFileName is not in __files/)\n"
        return PreparedResponse(status: 500, reason: nil, headers: headers, body: Array(message.utf8))
    }

    /// The body bytes when they are known at load.
    package var staticBody: [UInt8]? {
        switch body {
        case .none: return []
        case .text(let s): return Array(s.utf8)
        case .json(let node): return JSONSerializer.bytes(node)
        case .bytes(let b), .file(_, let b): return b
        case .templatedFile, .missingFile: return nil
        }
    }
}

/// What reading a WireMock file needs: where bodies live and the problems found so far.
/// Unsupported keys are warnings (`--strict` makes them errors); mistakes are errors.
package struct WireMockContext: ProblemCollecting {
    package let displayPath: String
    /// The folder holding `mappings/` and `__files/`.
    let root: URL
    let bodyFiles: BodyFileReader
    /// Every mapping's response is a template (`--global-response-templating`).
    let globalTemplating: Bool
    /// The files of `__files`, for templated `bodyFileName`s, read once when first needed.
    let filesCache: WireMockFilesCache
    package private(set) var problems: [StubProblem] = []
    /// Mappings of this file left out because of their errors.
    package private(set) var skipped: [SkippedMapping] = []
    package private(set) var errorCount = 0
    package var errorLimit: Int?

    init(displayPath: String, root: URL, globalTemplating: Bool, filesCache: WireMockFilesCache? = nil) {
        self.displayPath = displayPath
        self.root = root.standardizedFileURL
        bodyFiles = BodyFileReader(root: root)
        self.globalTemplating = globalTemplating
        self.filesCache = filesCache ?? WireMockFilesCache(root: root, reader: bodyFiles)
    }

    private init(displayPath: String, sharing other: WireMockContext) {
        self.displayPath = displayPath
        root = other.root
        bodyFiles = other.bodyFiles
        globalTemplating = other.globalTemplating
        filesCache = other.filesCache
        errorLimit = other.errorLimit
    }

    /// A context for another file of the same folder, with no problems yet. Resolving the root
    /// (symbolic links, standardising) costs system calls: a folder of 5,000 mapping files did
    /// it 10,000 times, a third of its load time.
    func forFile(_ displayPath: String) -> WireMockContext {
        WireMockContext(displayPath: displayPath, sharing: self)
    }

    package mutating func problem(_ problem: StubProblem) {
        if problem.severity == .error { errorCount += 1 }
        problems.append(problem)
    }

    /// Records the mapping at `path` as skipped when errors were found since `start` (the
    /// problem count before it was read).
    mutating func skipIfFailed(_ path: String, _ position: SourcePosition?, since start: Int) {
        let found = problems[start...]
        if let skip = SkippedMapping(file: displayPath, position: position, jsonPath: path, problems: found) {
            skipped.append(skip)
        }
    }

    /// Checks an object's keys: supported ones pass, known-but-unsupported ones and unknown
    /// ones are warnings saying what happens instead. False when the node is not an object.
    mutating func checkKeys(
        _ node: JSONNode,
        _ path: String,
        supported: [String],
        unsupported: [String: String],
        what: String
    ) -> Bool {
        guard let members = node.members else {
            error(path, node, "expected \(what) (an object), found \(node.kindDescription)")
            return false
        }
        for member in members where !supported.contains(member.key) {
            let memberPath = path + DocumentProblem.pathComponent(member.key)
            if let why = unsupported[member.key] {
                warning(memberPath, member.keyPosition, "\"\(member.key)\" is not supported: \(why)")
            } else {
                var message = "unknown key \"\(member.key)\" in \(what); it is ignored"
                if let near = Suggestion.closest(to: member.key, among: supported + unsupported.keys.sorted()) {
                    message += " (did you mean \"\(near)\"?)"
                }
                warning(memberPath, member.keyPosition, message)
            }
        }
        return true
    }
}

/// The files under `__files`, read once (at load, when a mapping first needs them), for
/// `bodyFileName`s a template chooses per request: the request path never reads the disk.
/// Text files with tags are compiled as templates too, for templated mappings. Each file passes
/// the check every body file passes (`BodyFileReader`: inside the folder, links included, a
/// regular file, bounded): a link in `__files` to `/etc/passwd` is refused, by the same words,
/// whether a fixed `bodyFileName` or a template names it.
package final class WireMockFilesCache: Sendable {
    struct File: Sendable {
        let bytes: [UInt8]
        let template: HandlebarsTemplate?
    }

    /// What a name a template rendered leads to.
    enum Lookup {
        case found(File)
        /// A file in `__files` that no body may come from, and why.
        case refused(String)
        case missing
    }

    private struct Contents {
        var files: [String: File] = [:]
        var refusals: [String: String] = [:]
    }

    private let root: URL
    private let reader: BodyFileReader
    private let loaded = Locked<Contents?>(nil)

    init(root: URL, reader: BodyFileReader) {
        self.root = root
        self.reader = reader
    }

    /// Reads the folder now (the loader calls it, never a request).
    func preload() {
        loaded.withLock { contents in
            if contents == nil { contents = Self.read(root.appendingPathComponent("__files"), with: reader) }
        }
    }

    func lookup(_ name: String) -> Lookup {
        let key = name.hasPrefix("/") ? String(name.dropFirst()) : name
        return loaded.withLock { contents in
            if let file = contents?.files[key] { return .found(file) }
            if let refusal = contents?.refusals[key] { return .refused(refusal) }
            return .missing
        }
    }

    private static func read(_ folder: URL, with reader: BodyFileReader) -> Contents {
        var contents = Contents()
        var total = 0
        // Read as if from a file inside `__files`, as a fixed `bodyFileName` is.
        let anchor = folder.appendingPathComponent(".anchor")
        for entry in FolderWalk.walk(folder.path).entries where !entry.isDirectory {
            let bytes: [UInt8]
            switch reader.read(entry.path, from: anchor) {
            case .success(let read):
                bytes = read
            case .failure(let failure):
                contents.refusals[entry.path] = failure.message.replacing("bodyFile", with: "bodyFileName")
                continue
            }
            total += bytes.count
            // Bounded like body files: what one folder may hold in memory.
            if total > BodyFileReader.maximumBytes { break }
            var template: HandlebarsTemplate?
            if let text = String(bytes: bytes, encoding: .utf8), HandlebarsTemplate.hasTags(text) {
                template = try? HandlebarsTemplate(text, knownRoots: WireMockTemplating.roots)
            }
            contents.files[entry.path] = File(bytes: bytes, template: template)
        }
        return contents
    }
}
