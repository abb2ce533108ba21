import HTTP1
import JSON
import StubEngine

/// A `CONNECT`'s lines: one when the tunnel opens (or cannot), one when it ends, saying how:
/// the bytes each way, how long it was open, and why unless both sides closed (a reset, the
/// idle timeout, the server stopping). The answer to the `CONNECT` alone would say `200` for a
/// tunnel whose upstream could not be reached or broke off later.
extension RequestLog {
    func recordTunnel(
        _ request: IncomingRequest,
        _ tunnel: ConnectionTunnel,
        _ progress: ConnectionTunnel.Progress,
        microseconds: Int
    ) {
        switch format {
        case .quiet: return
        case .json: console.log(tunnelJSON(request, tunnel, progress, microseconds))
        case .text: console.log(tunnelText(request, tunnel, progress, microseconds))
        }
    }

    private func tunnelText(
        _ request: IncomingRequest,
        _ tunnel: ConnectionTunnel,
        _ progress: ConnectionTunnel.Progress,
        _ microseconds: Int
    ) -> String {
        let intercepted = tunnel.mode == .intercept
        let kind = console.paint(intercepted ? "INTERCEPT" : "TUNNEL", "36")
        var line = "\(timestamp()) \(request.method) \(request.target) "
        switch progress.state {
        case .connecting, .open:
            let status = progress.status ?? 200
            line += console.paint(String(status), "32") + " \(kind) "
            line += intercepted ? "TLS ended here; its requests follow" : "blind, to \(tunnel.authority)"
            line += " \(milliseconds(microseconds))"
        case .failed:
            let status = progress.status.map(String.init) ?? "---"
            line += console.paint(status, "31") + " \(kind) failed: \(progress.error ?? "no reason given")"
            line += " \(milliseconds(microseconds))"
        case .closed:
            line += console.paint("ended", "2") + " \(kind) "
            if !intercepted {
                line += "\(Self.bytes(progress.bytesFromClient)) up, \(Self.bytes(progress.bytesToClient)) down, "
            }
            line += "open \(Self.duration(progress.milliseconds ?? 0))"
            // An intercepted tunnel without a reason was closed by its client, or by a response
            // that closed its connection: no claim of who.
            if let error = progress.error {
                line += ": " + console.paint(error, "33")
            } else if !intercepted {
                line += ", closed by both sides"
            }
        }
        return line
    }

    private func tunnelJSON(
        _ request: IncomingRequest,
        _ tunnel: ConnectionTunnel,
        _ progress: ConnectionTunnel.Progress,
        _ microseconds: Int
    ) -> String {
        var fields = [
            "\"time\":\(JSONSerializer.quoted(LogTime.rfc3339()))",
            "\"method\":\(JSONSerializer.quoted(request.method))",
            "\"target\":\(JSONSerializer.quoted(request.target))",
            "\"status\":\(progress.status.map(String.init) ?? "null")",
            "\"stub\":null",
            "\"ms\":\(fixedPoint(Double(microseconds) / 1000, decimals: 3))",
        ]
        var tunnelFields = [
            "\"mode\":\(JSONSerializer.quoted(tunnel.mode.rawValue))",
            "\"state\":\(JSONSerializer.quoted(progress.state.rawValue))",
        ]
        if progress.state == .closed {
            tunnelFields.append("\"bytesFromClient\":\(progress.bytesFromClient)")
            tunnelFields.append("\"bytesToClient\":\(progress.bytesToClient)")
        }
        if let ms = progress.milliseconds { tunnelFields.append("\"durationMs\":\(ms)") }
        if let error = progress.error { tunnelFields.append("\"error\":\(JSONSerializer.quoted(error))") }
        fields.append("\"tunnel\":{" + tunnelFields.joined(separator: ",") + "}")
        return "{" + fields.joined(separator: ",") + "}"
    }

    static func duration(_ milliseconds: Int64) -> String {
        milliseconds < 1000 ? "\(milliseconds) ms" : fixedPoint(Double(milliseconds) / 1000, decimals: 2) + " s"
    }

    /// Exact below 100 kB, else in MB with one decimal.
    static func bytes(_ count: Int) -> String {
        count < 100_000 ? "\(count) B" : fixedPoint(Double(count) / 1_000_000, decimals: 1) + " MB"
    }
}
