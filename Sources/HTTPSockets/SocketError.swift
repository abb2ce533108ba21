/// Why the server could not start or a socket call failed, with what a user can do about it.
package enum SocketError: Error, Sendable, Equatable, CustomStringConvertible {
    case addressInUse(address: String)
    case permissionDenied(address: String)
    case addressNotAvailable(address: String)
    case cannotResolve(host: String, reason: String)
    case system(call: String, errno: Int32)

    package var description: String {
        switch self {
        case .addressInUse(let address):
            """
            \(address) is already in use by another program; stop it, pick another port, or use --port 0 for a \
            free one
            """
        case .permissionDenied(let address):
            "no permission to listen on \(address) (ports below 1024 need privileges); pick a port above 1024"
        case .addressNotAvailable(let address):
            "\(address) is not an address of this machine"
        case .cannotResolve(let host, let reason):
            "cannot resolve host \(host): \(reason)"
        case .system(let call, let code):
            "\(call) failed: \(Posix.errorDescription(code))"
        }
    }
}
