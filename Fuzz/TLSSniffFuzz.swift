// libFuzzer target for TLS on the server's port: the first-byte sniffing that tells TLS from
// plain HTTP, and the server session that bytes from anyone are fed to (HTTPSockets's
// TLSSession over CTLS and the system's OpenSSL, with a certificate from Certificates). Not
// part of the package: scripts/fuzz builds SystemSupport, CTLS, CSystemLinux, HTTP1,
// HTTPSockets and Certificates as instrumented static libraries and links this file to them.
//
// Each input is used three ways:
// - Sniffing: a connection whose first byte is 0x16 is TLS, any other first byte plain HTTP.
// - As a client's bytes: fed to a fresh server session in input-chosen pieces, driving the
//   handshake after each as a connection does. It never completes (no client can finish a
//   handshake without the server's randomness), a failure is final, and what the server writes
//   stays small (its first flight and alerts).
// - As a corruption of a real exchange: a client session that trusts the CA and a server
//   session run a handshake and one request through memory; the input picks one byte of the
//   client's output to flip (or none). Untouched, the handshake completes and the request
//   arrives intact; touched, the session fails or the request still arrives exactly as sent,
//   never altered.
// A violated check is a precondition failure, which libFuzzer reports and saves.

import Certificates
import HTTPSockets

#if canImport(Glibc)
import Glibc
#endif

private struct Fixture {
    let server: TLSServerContext
    let client: TLSContext
}

private let fixture: Fixture = {
    let authority = try! LocalAuthority.temporary()
    let issued = try! authority.issue(names: ["localhost", "127.0.0.1"])
    let server = try! TLSServerContext(chain: issued.chain, key: issued.key)
    let path = "/tmp/stubserver-tls-fuzz-ca-\(getpid()).pem"
    let pem = PEM.encode(label: "CERTIFICATE", der: authority.certificate.der)
    let file = fopen(path, "w")!
    fputs(pem, file)
    fclose(file)
    let client = try! TLSContext(caFile: path)
    unlink(path)
    return Fixture(server: server, client: client)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    if let first = input.first {
        precondition(TLSSniffing.startsTLS(first) == (first == 0x16), "sniffing disagrees on \(first)")
    }
    feedAsClient(input)
    corruptExchange(input)
    return 0
}

private func feedAsClient(_ input: [UInt8]) {
    guard let session = TLSSession(server: fixture.server) else { preconditionFailure("no server session") }
    var offset = 0
    var written = 0
    var pieceIndex = 0
    while offset < input.count {
        // Piece sizes 1 to 256 taken from the input itself.
        let piece = min(input.count - offset, Int(input[pieceIndex % input.count]) + 1)
        pieceIndex += 1
        let fed = input[offset..<(offset + piece)].withUnsafeBytes { session.feed($0) }
        offset += piece
        guard fed else { return }
        let step = session.handshake()
        var out: [UInt8] = []
        session.takeOutgoing(into: &out)
        written += out.count
        precondition(written < 64 * 1024, "the server wrote \(written) bytes to a stranger")
        switch step {
        case .done: preconditionFailure("a handshake completed from bytes chosen without the server's randomness")
        case .needInput: continue
        case .closed, .failed: return
        }
    }
}

private func corruptExchange(_ input: [UInt8]) {
    guard let server = TLSSession(server: fixture.server),
        let client = try? TLSSession(context: fixture.client, host: "localhost")
    else { preconditionFailure("no sessions") }
    // Which byte of the client's output to flip: none when the input is short.
    let target = input.count >= 3 ? Int(input[1]) << 8 | Int(input[2]) : -1
    let flip = input.count >= 4 ? max(1, input[3]) : 1
    var sentByClient = 0
    var corrupted = false
    let request = Array("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
    var requestSent = false
    var received: [UInt8] = []
    var serverDone = false
    for _ in 0..<16 {
        let clientStep = client.handshake()
        if case .failed = clientStep { break }
        if clientStep == .done, !requestSent {
            _ = request.withUnsafeBytes { client.write($0) }
            requestSent = true
        }
        var toServer: [UInt8] = []
        client.takeOutgoing(into: &toServer)
        if target >= sentByClient && target < sentByClient + toServer.count {
            toServer[target - sentByClient] ^= flip
            corrupted = true
        }
        sentByClient += toServer.count
        guard toServer.withUnsafeBytes({ server.feed($0) }) else { break }
        if !serverDone {
            let step = server.handshake()
            if case .failed = step { break }
            if case .closed = step { break }
            serverDone = step == .done
        }
        if serverDone {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let (count, _) = buffer.withUnsafeMutableBytes { server.read(into: $0) }
            received += buffer[0..<count]
        }
        var toClient: [UInt8] = []
        server.takeOutgoing(into: &toClient)
        guard toClient.withUnsafeBytes({ client.feed($0) }) else { break }
        if received.count >= request.count { break }
    }
    if !corrupted {
        precondition(received == request, "an untouched exchange did not carry the request intact")
    } else {
        precondition(received.isEmpty || received == request, "a corrupted exchange delivered altered bytes")
    }
}
