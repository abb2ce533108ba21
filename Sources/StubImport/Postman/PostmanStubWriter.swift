import HTTP1
import JSON
import NativeStubs
import StubAuthoring
import StubEngine

/// Saved examples grouped into stubs and stub files. A route is a method and path; the query
/// parameters and the body become conditions only where they tell the route's examples apart
/// (a parameter every example sends alike says nothing). Examples whose conditions come out
/// the same are one stub answering them in turn, with a stub per example name selected by
/// `Prefer: example=NAME` beside it: never one silently hiding another. A group's stubs go into
/// the file of the request that saved its first example.
struct PostmanStubWriter {
    let items: [PostmanItem]
    let keepSecrets: Bool
    private(set) var sequences = 0
    /// For each example, the example whose response a request made to fit it gets (itself,
    /// unless another of its group has its name), and whether that request needs `Prefer`.
    private(set) var answeredBy: [Int] = []
    private(set) var needsPrefer: [Bool] = []
    private(set) var droppedSecrets: [String: Int] = [:]
    /// Stubs by item, in order.
    private var stubsByItem: [Int: [JSONNode]] = [:]
    private var bodyNames = FileNameAllocator()
    private var savedBodies: [[UInt8]: String] = [:]
    /// Items whose examples all answer through another item's stubs: (item, the other).
    private var merged: [(item: Int, into: Int)] = []

    init(items: [PostmanItem], keepSecrets: Bool) {
        self.items = items
        self.keepSecrets = keepSecrets
    }

    /// One group of examples that ask the same: one stub, or a sequence and `Prefer` stubs.
    private struct Group {
        let request: [(String, JSONNode)]
        /// Indexes into the examples.
        var members: [Int]
    }

    mutating func write(_ examples: [PostmanExample], into plan: inout ImportPlan) {
        var groups: [Group] = []
        var groupIndex: [String: Int] = [:]
        let routes = Dictionary(grouping: examples.indices) { routeKey(examples[$0].request) }
        var conditions: [[(String, JSONNode)]] = Array(repeating: [], count: examples.count)
        for indices in routes.values {
            let telling = tellingParameters(indices.map { examples[$0].request.query })
            var byQuery: [String: [Int]] = [:]
            for i in indices {
                conditions[i] = requestConditions(examples[i].request, queryNames: telling)
                byQuery[JSONSerializer.string(.object(conditions[i])), default: []].append(i)
            }
            for sameQuery in byQuery.values {
                let bodies = sameQuery.map { examples[$0].request.body.condition(isSecret: isSecret) }
                let differ = Set(bodies.map { $0.map(JSONSerializer.string) ?? "" }).count > 1
                guard differ else { continue }
                let values = bodies.compactMap { $0?["jsonEquals"] ?? $0?["json"] }
                for (i, body) in zip(sameQuery, bodies) {
                    guard var body else { continue }
                    // A pattern lets other keys through: the keys only other examples send
                    // must then be absent, or the body with fewer keys would match them all.
                    if let pattern = body["json"] {
                        body = .object([("json", Self.absentKeys(pattern, others: values))])
                    }
                    conditions[i].append(("body", body))
                }
            }
        }
        for i in examples.indices {
            let key = JSONSerializer.string(.object(conditions[i]))
            if let g = groupIndex[key] {
                groups[g].members.append(i)
            } else {
                groupIndex[key] = groups.count
                groups.append(Group(request: conditions[i], members: [i]))
            }
        }
        answeredBy = Array(examples.indices)
        needsPrefer = Array(repeating: false, count: examples.count)
        for group in groups { write(group, examples, into: &plan) }
        for (i, item) in items.enumerated() where !item.examples.isEmpty && stubsByItem[i] == nil {
            let group = groups.first { $0.members.contains { examples[$0].item == i } }
            if let first = group?.members.first { merged.append((i, examples[first].item)) }
        }
    }

    private mutating func write(_ group: Group, _ examples: [PostmanExample], into plan: inout ImportPlan) {
        let first = examples[group.members[0]]
        let item = items[first.item]
        var responses: [(index: Int, node: JSONNode)] = []
        var bytes: [[UInt8]] = []
        for i in group.members {
            let node = response(examples[i], depth: item.folders.count, plan: &plan)
            let serialised = JSONSerializer.bytes(node)
            if !bytes.contains(serialised) {
                bytes.append(serialised)
                responses.append((i, node))
            }
        }
        var stubs: [JSONNode] = []
        if responses.count == 1 {
            for i in group.members { answeredBy[i] = group.members[0] }
            stubs.append(stub("\(item.displayPath): \(first.name)", group.request, [("response", responses[0].node)]))
        } else {
            sequences += 1
            let title = "\(item.displayPath): \(responses.count) examples in turn (Prefer: example=NAME picks one)"
            stubs.append(
                stub(title, group.request, [("responses", .array(responses.map(\.node))), ("after", .string("cycle"))])
            )
            var named: [String: Int] = [:]
            for (i, node) in responses where named[examples[i].name] == nil && Self.isSayable(examples[i].name) {
                let name = examples[i].name
                named[name] = i
                var request = group.request
                let prefer: JSONNode = .object([("matches", .string(PreferCondition.example(name)))])
                request.append(("headers", .object([("Prefer", prefer)])))
                let title = "\(items[examples[i].item].displayPath): \(name) (Prefer: example=\(name))"
                stubs.append(stub(title, request, [("response", Self.applied(node, name))], priority: 4))
            }
            for i in group.members {
                guard let chosen = named[examples[i].name] else { continue }
                answeredBy[i] = chosen
                needsPrefer[i] = true
            }
        }
        stubsByItem[first.item, default: []] += stubs
    }

    /// A name a `Prefer` header can carry and a response header can repeat: no control
    /// characters, no quotes or separators that would end it.
    static func isSayable(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                $0.value >= 0x20 && $0.value != 0x7F && $0 != "\"" && $0 != "," && $0 != ";"
            }
            && name.first != " " && name.last != " "
    }

    /// A request without a saved example: a stub that answers 501 and names it.
    mutating func writePlaceholder(_ index: Int, _ request: PostmanRequest) {
        let item = items[index]
        let message =
            """
            no saved response for \"\(item.displayPath)\" in the Postman collection: save an example in Postman \
            and import again, or edit this stub
            """
        let response: JSONNode = .object([
            ("status", .number(501)),
            ("body", .object([("error", .string(message)), ("request", .string(item.displayPath))])),
        ])
        stubsByItem[index, default: []].append(
            stub(
                "\(item.displayPath) (placeholder: no saved response)",
                requestConditions(request, queryNames: []),
                [("response", response)],
                priority: 9
            )
        )
    }

    /// Writes the stub files: one per request that has stubs, in folders as the collection's.
    mutating func finish(into plan: inout ImportPlan, file: String) {
        var allocators: [String: FileNameAllocator] = [:]
        var folderNames: [String: [String: String]] = [:]
        for (index, item) in items.enumerated() {
            guard let stubs = stubsByItem[index] else { continue }
            var directory = ""
            for folder in item.folders {
                let slug = FileNameAllocator.slug(folder, fallback: "folder")
                // One folder name per folder of the collection (two named alike share one).
                let name = folderNames[directory, default: [:]][folder] ?? slug
                folderNames[directory, default: [:]][folder] = name
                directory += name + "/"
            }
            let base = FileNameAllocator.slug(item.name, fallback: "request")
            let name = allocators[directory, default: FileNameAllocator()].allocate(base, extension: "json")
            plan.addStubFile(directory + name, stubs)
        }
        for (item, into) in merged {
            plan.problems.append(
                ImportProblem(
                    .note,
                    file: file,
                    position: items[item].node.position,
                    message:
                        """
                        the examples of \"\(items[item].displayPath)\" ask what those of \
                        \"\(items[into].displayPath)\" ask: they answer through its stubs
                        """
                )
            )
        }
    }

    // MARK: conditions

    private func routeKey(_ request: PostmanRequest) -> String {
        switch request.path.stubPath {
        case .path(let path): "\(request.method) \(path)"
        case .pattern(let pattern): "\(request.method) ~\(pattern)"
        }
    }

    /// `pattern` with `{"absent": true}` for each key that an object at the same place in one of
    /// `others` has and it has not; objects in both are compared the same way, deeper.
    static func absentKeys(_ pattern: JSONNode, others: [JSONNode]) -> JSONNode {
        guard let members = pattern.members, !(members.count == 1 && members[0].key == "equals"),
            !members.allSatisfy({ StubFormat.jsonMatcherKeys.contains($0.key) })
        else { return pattern }
        var result = members.map { member -> (String, JSONNode) in
            let deeper = others.compactMap { $0[member.key] }.filter { $0.members != nil }
            return (member.key, deeper.isEmpty ? member.value : absentKeys(member.value, others: deeper))
        }
        for other in others {
            for member in other.members ?? [] where !result.contains(where: { $0.0 == member.key }) {
                result.append((member.key, .object([("absent", .bool(true))])))
            }
        }
        return .object(result)
    }

    /// The query parameters that tell a route's examples apart: not sent alike by all of them.
    private func tellingParameters(_ queries: [[(name: String, value: String)]]) -> Set<String> {
        var names = Set<String>()
        for query in queries {
            for (name, value) in query where !names.contains(name) {
                let alike = queries.allSatisfy { other in other.contains { $0.name == name && $0.value == value } }
                if !alike { names.insert(name) }
            }
        }
        return names
    }

    /// Method, path, and the telling query parameters: a value as sent, a placeholder or a
    /// secret only present (its value is not written).
    private mutating func requestConditions(_ request: PostmanRequest, queryNames: Set<String>) -> [(String, JSONNode)]
    {
        var conditions: [(String, JSONNode)] = [("method", .string(request.method))]
        switch request.path.stubPath {
        case .path(let path): conditions.append(("path", .string(path)))
        case .pattern(let pattern): conditions.append(("pathPattern", .string(pattern)))
        }
        var query: [(String, JSONNode)] = []
        for (name, value) in request.query where queryNames.contains(name) {
            if isSecret(name.lowercased()) {
                droppedSecrets["query \(name.lowercased())", default: 0] += 1
                query.append((name, .object([("present", .bool(true))])))
            } else if PostmanVariables.isPlaceholder(value) {
                query.append((name, .object([("present", .bool(true))])))
            } else {
                query.append((name, .string(value)))
            }
        }
        if !query.isEmpty { conditions.append(("query", .object(query))) }
        return conditions
    }

    private func isSecret(_ lowered: String) -> Bool {
        !keepSecrets && RecordedFields.isSecret(lowered)
    }

    private func stub(
        _ name: String,
        _ request: [(String, JSONNode)],
        _ answer: [(String, JSONNode)],
        priority: Int? = nil
    ) -> JSONNode {
        var members: [(String, JSONNode)] = [("name", .string(name))]
        if let priority { members.append(("priority", .number(priority))) }
        members.append(("request", .object(request)))
        return .object(members + answer)
    }

    // MARK: responses

    /// `depth`: how many folders down the stub file is, so its `bodyFile` reaches `__files/`.
    private mutating func response(_ example: PostmanExample, depth: Int, plan: inout ImportPlan) -> JSONNode {
        var members: [(String, JSONNode)] = [("status", .number(example.status))]
        var headers: [(name: String, values: [String])] = []
        for (name, value) in example.headers {
            if let i = headers.firstIndex(where: { asciiCaseInsensitiveEquals($0.name, name) }) {
                headers[i].values.append(value)
            } else {
                headers.append((name, [value]))
            }
        }
        if !headers.isEmpty {
            members.append(
                (
                    "headers",
                    .object(
                        headers.map { header in
                            (
                                header.name,
                                header.values.count == 1
                                    ? .string(header.values[0]) : .array(header.values.map(JSONNode.string))
                            )
                        }
                    )
                )
            )
        }
        // Postman saves bodies as text: one without a type is placed as text (and served as
        // the loader's default for a string body, text/plain).
        let placedAs = example.contentType.isEmpty ? "text/plain" : example.contentType
        switch RecordedBodies.placement(example.body, contentType: placedAs) {
        case .none: break
        case .inline(let value): members.append(("body", value))
        case .file(let ext):
            let path: String
            if let known = savedBodies[example.body] {
                path = known
            } else {
                let base = FileNameAllocator.slug(
                    (items[example.item].folders + [items[example.item].name]).joined(separator: " "),
                    fallback: "body"
                )
                path = "__files/" + bodyNames.allocate(base, extension: ext)
                plan.files.append(StubFolderPlan.File(relativePath: path, bytes: example.body))
                savedBodies[example.body] = path
            }
            members.append(("bodyFile", .string(String(repeating: "../", count: depth) + path)))
        }
        return .object(members)
    }

    /// The response with `Preference-Applied: example=NAME` (RFC 7240): the client can tell
    /// its `Prefer` was honoured.
    static func applied(_ response: JSONNode, _ name: String) -> JSONNode {
        guard var members = response.members?.map({ ($0.key, $0.value) }) else { return response }
        let header = (PreferCondition.appliedHeader, JSONNode.string(PreferCondition.applied(example: name)))
        if let i = members.firstIndex(where: { $0.0 == "headers" }), let existing = members[i].1.members {
            members[i] = ("headers", .object(existing.map { ($0.key, $0.value) } + [header]))
        } else {
            members.insert(("headers", .object([header])), at: 1)
        }
        return .object(members)
    }
}
