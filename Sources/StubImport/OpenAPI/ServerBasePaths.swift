#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSONSchema
import StubEngine

/// The base paths of a document's `servers` (`https://api.example.com/v2` → `/v2`), with server
/// variables replaced by their defaults. An operation's own `servers` win over its path's, and
/// those over the document's, as OpenAPI says; no servers means `/`.
package enum ServerBasePaths {
    /// The base paths of the servers in effect for an operation, in document order, without
    /// a trailing slash ("" for the root), no duplicates.
    package static func paths(operation: LocatedNode?, pathItem: LocatedNode?, document: LocatedNode) -> [String] {
        let servers =
            [operation?["servers"], pathItem?["servers"], document["servers"]]
            .lazy.compactMap { $0?.elements }.first { !$0.isEmpty } ?? []
        var result: [String] = []
        for server in servers {
            guard let url = server["url"]?.string else { continue }
            let path = basePath(of: substitute(url, server["variables"]))
            if !result.contains(path) { result.append(path) }
        }
        return result.isEmpty ? [""] : result
    }

    /// `{name}` replaced by the variable's default (or first enum value); unknown ones stay.
    static func substitute(_ url: String, _ variables: LocatedNode?) -> String {
        var out = ""
        var rest = Substring(url)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            let variable = variables?[name]
            if let value = variable?["default"]?.string ?? variable?["enum"]?.node.elements?.first?.string {
                out += value
            } else {
                out += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// The path of a server URL: after the authority of an absolute URL, or the URL itself when
    /// relative; query and fragment dropped, no trailing slash.
    static func basePath(of url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.firstRange(of: "://") {
            rest = rest[scheme.upperBound...]
            rest = rest.firstIndex(of: "/").map { rest[$0...] } ?? ""
        } else if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            rest = rest.firstIndex(of: "/").map { rest[$0...] } ?? ""
        }
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        if !rest.isEmpty && !rest.hasPrefix("/") { return "/" + rest }
        return String(rest)
    }
}
