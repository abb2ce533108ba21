import SystemSupport

/// The names a server certificate carries: every name a client on this machine, a simulator,
/// an emulator or a device on the LAN uses to reach the server.
package enum ServerNames {
    /// What every certificate carries: loopback by name and address, and 10.0.2.2, the host as
    /// the Android emulator sees it.
    package static let always = ["localhost", "127.0.0.1", "::1", "10.0.2.2"]

    /// `always`, this machine's host names, the addresses of its networks when listening on
    /// every address (else the listening address itself), and `extra` (`--cert-host`); each once.
    package static func forListening(on host: String, extra: [String] = []) -> [String] {
        var names = always + HostName.own()
        let everywhere = host == "0.0.0.0" || host == "::" || host == "[::]"
        if everywhere {
            names += NetworkInterfaces.addresses()
        } else {
            names.append(host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host)
        }
        names += extra
        var seen: Set<String> = []
        return names.map { $0.lowercased() }.filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
