#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON

/// Where a value sits among the documents of one import or check: which file, and the RFC 6901
/// pointer to it. Findings print it as `#/components/schemas/Pet/properties/id`, or with the
/// file's name for a value in another file (`common.yaml#/Error`), so a reader can open it.
package struct NodeLocation: Sendable, Hashable, CustomStringConvertible {
    /// The document's index in its `DocumentSet`; 0 is the document the user named.
    package let document: Int
    /// `/paths/~1pets/get`, or "" for the document's root.
    package let pointer: String
    /// Empty for the root document, else its path as referenced.
    package let documentName: String

    package init(document: Int, pointer: String, documentName: String) {
        self.document = document
        self.pointer = pointer
        self.documentName = documentName
    }

    package func appending(_ key: String) -> NodeLocation {
        NodeLocation(document: document, pointer: pointer + "/" + JSONPointer.escape(key), documentName: documentName)
    }

    package func appending(_ index: Int) -> NodeLocation {
        NodeLocation(document: document, pointer: pointer + "/\(index)", documentName: documentName)
    }

    package var description: String { "\(documentName)#\(pointer)" }
}

/// A value and where it is: walking a document with these keeps every finding's schema path
/// and every `$ref`'s base file at hand.
package struct LocatedNode: Sendable {
    package let node: JSONNode
    package let location: NodeLocation

    package init(_ node: JSONNode, _ location: NodeLocation) {
        self.node = node
        self.location = location
    }

    package subscript(key: String) -> LocatedNode? {
        guard let members = node.members else { return nil }
        // The last of repeated keys, as JSON pointers resolve them (readers refuse repeats anyway).
        guard let member = members.last(where: { $0.key == key }) else { return nil }
        return LocatedNode(member.value, location.appending(key))
    }

    /// An object's members as located nodes, in document order.
    package var members: [(key: String, value: LocatedNode)]? {
        node.members?.map { ($0.key, LocatedNode($0.value, location.appending($0.key))) }
    }

    package var elements: [LocatedNode]? {
        node.elements?.enumerated().map { LocatedNode($0.element, location.appending($0.offset)) }
    }

    package var string: String? { node.string }
    package var isObject: Bool { node.members != nil }

    /// The `$ref` string of an object that is a reference, if it is one.
    package var reference: String? { node["$ref"]?.string }
}
