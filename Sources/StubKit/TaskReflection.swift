import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What swift-corelibs-foundation keeps internal about a task but a custom URLProtocol needs to
/// act as URLSession does over a socket: the session that runs it (its configuration: timeout,
/// additional headers, cookie store) and the body an upload task was given
/// (`upload(for:from:)`, `upload(for:fromFile:)`, which never reach the protocol's request
/// there). Read by reflection (`Mirror`), in this one place; when a Foundation release renames
/// what is read, the answers are nil and `TransportParityTests` fails, rather than a body going
/// missing unnoticed. On Apple platforms tasks are Objective-C objects that reflection does not
/// see into: the answers are nil, and URLSession hands the protocol the body as
/// `httpBodyStream` and the session's headers in the request.
enum TaskReflection {
    /// What an upload task sends, as swift-corelibs-foundation keeps it.
    enum KnownBody {
        case empty
        case data(Data)
        case file(URL)
        case stream(InputStream)
    }

    /// The session running `task`.
    static func session(of task: URLSessionTask?) -> URLSession? {
        guard let task, let value = storedProperty("session", of: task) else { return nil }
        return unwrapped(value) as? URLSession
    }

    /// The body the task was made with; nil where it cannot be seen, or when the task has none
    /// yet and would ask its delegate (`uploadTask(withStreamedRequest:)`).
    static func knownBody(of task: URLSessionTask?) -> KnownBody? {
        guard let task, let value = storedProperty("knownBody", of: task), let body = unwrapped(value) else {
            return nil
        }
        let mirror = Mirror(reflecting: body)
        guard mirror.displayStyle == .enum else { return nil }
        guard let payload = mirror.children.first else { return .empty }
        switch payload.label {
        case "data": return (payload.value as? DispatchData).map { .data(Data($0)) }
        case "file": return (payload.value as? URL).map { .file($0) }
        case "stream": return (payload.value as? InputStream).map { .stream($0) }
        default: return nil
        }
    }

    private static func storedProperty(_ name: String, of object: AnyObject) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            if let child = current.children.first(where: { $0.label == name }) { return child.value }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// The value inside an Optional held as `Any` (reflection hands optionals over boxed).
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { $0.value }
    }
}
