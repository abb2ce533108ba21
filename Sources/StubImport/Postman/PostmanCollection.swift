import JSON
import StubEngine

/// One request of a collection, where it sits in the folders, and its saved examples as written.
struct PostmanItem {
    /// The names of the folders that hold it, outermost first.
    let folders: [String]
    let name: String
    /// The item's object, for positions in messages.
    let node: JSONNode
    /// `request`: an object, or (v2.0) the URL alone as a string.
    let request: JSONNode
    /// `response`: the saved examples, each with `code`, `header`, `body` and `originalRequest`.
    let examples: [JSONNode]

    /// `Tweet Lookup / Single Tweet`: how messages name it.
    var displayPath: String { (folders + [name]).joined(separator: " / ") }
}

/// Reads a Postman collection, v2.0 or v2.1 (the format Postman exports, `info.schema` naming
/// `.../collection/v2.1.0/collection.json`), or the Postman API's `{"collection": {...}}` wrapper
/// around one: its name, variables and requests, folders walked depth-first in order. Items that
/// are neither a folder nor a request are returned as malformed, with their path and why.
struct PostmanCollection {
    struct Malformed {
        /// The item's path in the collection (`Folder / Name`).
        let path: String
        let node: JSONNode
        let reason: String
    }

    let name: String
    /// `2.0.0`, `2.1.0`, or `2.x` when the schema URL does not say.
    let version: String
    /// The collection's `variable` list, in order; disabled ones left out.
    let variables: [(name: String, value: String)]
    var items: [PostmanItem] = []
    var malformed: [Malformed] = []

    /// Folders deeper than this are refused rather than walked (a hostile file nests thousands).
    static let maximumDepth = 64

    static func read(_ root: JSONNode, file: String) -> Result<PostmanCollection, ImportProblem> {
        var collection = root
        if root["info"] == nil, let wrapped = root["collection"], wrapped.members != nil {
            collection = wrapped
        }
        guard let info = collection["info"], info.members != nil, let items = collection["item"] else {
            return .failure(
                ImportProblem(
                    .error,
                    file: file,
                    position: root.position,
                    message: "not a Postman collection: \(describe(root))"
                )
            )
        }
        let schema = info["schema"]?.string ?? ""
        let version: String
        if schema.contains("/v2.1") {
            version = "2.1.0"
        } else if schema.contains("/v2.0") {
            version = "2.0.0"
        } else if schema.contains("/v1") {
            return .failure(
                ImportProblem(
                    .error,
                    file: file,
                    position: info.position,
                    message: "a Postman collection v1 (\(schema)); export it again from Postman as Collection v2.1"
                )
            )
        } else {
            version = "2.x"
        }
        guard let elements = items.elements else {
            return .failure(
                ImportProblem(
                    .error,
                    file: file,
                    position: items.position,
                    message:
                        """
                        not a Postman collection: \"item\" is \(items.kindDescription), expected the array of \
                        folders and requests
                        """
                )
            )
        }
        var result = PostmanCollection(
            name: info["name"]?.string ?? "",
            version: version,
            variables: variableList(collection["variable"])
        )
        result.walk(elements, folders: [], depth: 0)
        return .success(result)
    }

    private mutating func walk(_ elements: [JSONNode], folders: [String], depth: Int) {
        for (index, node) in elements.enumerated() {
            let name = node["name"]?.string ?? "#\(index + 1)"
            let path = (folders + [name]).joined(separator: " / ")
            guard node.members != nil else {
                malformed.append(
                    Malformed(
                        path: path,
                        node: node,
                        reason: "\(node.kindDescription), expected a folder or request object"
                    )
                )
                continue
            }
            if let children = node["item"] {
                guard let list = children.elements else {
                    malformed.append(
                        Malformed(
                            path: path,
                            node: node,
                            reason: "its \"item\" is \(children.kindDescription), expected an array"
                        )
                    )
                    continue
                }
                guard depth < Self.maximumDepth else {
                    malformed.append(
                        Malformed(path: path, node: node, reason: "folders nested deeper than \(Self.maximumDepth)")
                    )
                    continue
                }
                walk(list, folders: folders + [name], depth: depth + 1)
                continue
            }
            guard let request = node["request"], request.members != nil || request.string != nil else {
                let found =
                    node["request"].map { "its \"request\" is \($0.kindDescription)" }
                    ?? "no \"request\" and no \"item\""
                malformed.append(Malformed(path: path, node: node, reason: "\(found), expected a request object"))
                continue
            }
            let responses = node["response"]
            if let responses, responses.elements == nil, !Self.isNull(responses) {
                malformed.append(
                    Malformed(
                        path: path,
                        node: node,
                        reason: "its \"response\" is \(responses.kindDescription), expected an array of examples"
                    )
                )
                continue
            }
            items.append(
                PostmanItem(
                    folders: folders,
                    name: name,
                    node: node,
                    request: request,
                    examples: responses?.elements ?? []
                )
            )
        }
    }

    /// `variable` (a collection's) or `values` (an environment's): `key` (v2.1) or `id` (v2.0)
    /// with a `value` of any scalar type; `disabled: true` or `enabled: false` ones left out.
    static func variableList(_ node: JSONNode?) -> [(name: String, value: String)] {
        var list: [(name: String, value: String)] = []
        for entry in node?.elements ?? [] {
            guard let name = entry["key"]?.string ?? entry["id"]?.string, !name.isEmpty else { continue }
            if entry["disabled"]?.bool == true || entry["enabled"]?.bool == false { continue }
            guard let value = entry["value"].flatMap(scalarText) else { continue }
            list.append((name, value))
        }
        return list
    }

    /// A string as itself, a number as written, a boolean as `true`/`false`; nil otherwise.
    static func scalarText(_ node: JSONNode) -> String? {
        switch node.value {
        case .string(let text): text
        case .number(let number): number.text
        case .bool(let flag): flag ? "true" : "false"
        default: nil
        }
    }

    static func isNull(_ node: JSONNode) -> Bool {
        if case .null = node.value { true } else { false }
    }

    /// What a file that is not a collection looks like instead, so the message can say what to do.
    static func describe(_ root: JSONNode) -> String {
        if root["values"]?.elements != nil, root["item"] == nil {
            return
                """
                this is a Postman environment (a \"values\" list); pass it with --environment and give the \
                collection as the file
                """
        }
        if root["log"]?["entries"] != nil { return "this is a HAR file; use stubserver import har" }
        if root["openapi"] != nil || root["swagger"] != nil {
            return "this is an OpenAPI document; use stubserver import openapi"
        }
        if root["mappings"] != nil || (root["request"] != nil && root["response"] != nil) {
            return
                """
                this looks like WireMock mappings or a stub file; use stubserver import wiremock, or serve it \
                with --dir
                """
        }
        if root["requests"] != nil, root["order"] != nil || root["folders"] != nil {
            return "this looks like a Postman collection v1; export it again from Postman as Collection v2.1"
        }
        guard let members = root.members else {
            return
                """
                the file holds \(root.kindDescription); a collection is an object with \"info\" and \"item\" \
                (Postman: Export, Collection v2.1)
                """
        }
        let keys = members.prefix(8).map { "\"\($0.key)\"" }.joined(separator: ", ")
        let listed = members.isEmpty ? "an empty object" : "an object with \(keys)\(members.count > 8 ? ", ..." : "")"
        return "found \(listed); a collection has \"info\" and \"item\" (Postman: Export, Collection v2.1)"
    }
}
