import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import XCTest

/// Issue 36: what a test observes is the same through `LocalStubServer` (a socket) and
/// `StubURLProtocol` (no socket): upload bodies, cookies, content codings and the header fields
/// URLSession adds. Each case runs through both transports and compares what each saw.
final class TransportParityTests: XCTestCase {
    /// Each way URLSession sends a body: the stub sees every byte through both transports.
    func testUploadBodiesArriveWhicheverWayTheyAreSent() async throws {
        let payload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stubkit-upload-\(UUID().uuidString)")
        try payload.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        for transport in Transport.allCases {
            let stubs = try Stubs {
                StubDefinition(request: RequestDefinition(path: "/upload")) { request in .text("\(request.body.count)")
                }
            }
            let client = try client(of: stubs, through: transport)
            var request = URLRequest(url: client.baseURL.appendingPathComponent("upload"))
            request.httpMethod = "POST"
            var counts: [String: String] = [:]
            counts["data"] = try await text(client.session.upload(for: request, from: payload))
            counts["file"] = try await text(client.session.upload(for: request, fromFile: file))
            var streamed = request
            streamed.httpBodyStream = InputStream(data: payload)
            counts["stream"] = try await text(client.session.data(for: streamed))
            counts["delegate stream"] = try await streamedUpload(request, payload, session: client.session)
            var body = request
            body.httpBody = payload
            counts["httpBody"] = try await text(client.session.data(for: body))
            XCTAssertEqual(
                counts,
                [
                    "data": "100000", "file": "100000", "stream": "100000", "delegate stream": "100000",
                    "httpBody": "100000",
                ],
                "\(transport)"
            )
            XCTAssertEqual(try stubs.requests.map(\.bodySize), Array(repeating: 100_000, count: 5), "\(transport)")
        }
    }

    /// A cookie an answer sets comes back with the next request of the session, and only of it.
    func testCookiesFollowTheSessionAsOverASocket() async throws {
        for transport in Transport.allCases {
            let stubs = try Stubs {
                StubDefinition(
                    request: .post("/login"),
                    response: .status(204, headers: ["Set-Cookie": "session=abc123; Path=/"])
                )
                StubDefinition(
                    request: .get("/me", headers: ["Cookie": .contains("session=abc123")]),
                    response: .text("me")
                )
                StubDefinition(request: .get("/me"), response: .status(401))
            }
            let client = try client(of: stubs, through: transport)
            var login = URLRequest(url: client.baseURL.appendingPathComponent("login"))
            login.httpMethod = "POST"
            let before = try await status(client.session.data(from: client.baseURL.appendingPathComponent("me")))
            _ = try await client.session.data(for: login)
            let after = try await status(client.session.data(from: client.baseURL.appendingPathComponent("me")))
            XCTAssertEqual([before, after], [401, 200], "\(transport)")
            XCTAssertEqual(try stubs.requests.last?.header("Cookie"), "session=abc123", "\(transport)")
        }
    }

    /// A gzip or deflate body reaches the client decoded, its fields as the stub sent them.
    func testEncodedBodiesArriveDecoded() async throws {
        let gzip: [UInt8] = [
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0x28, 0xc9,
            0x28, 0xca, 0x2f, 0x4d, 0xcf, 0x50, 0x48, 0xaf, 0xca, 0x2c, 0x00, 0x00, 0x95, 0xca, 0x02, 0xc8, 0x12, 0x00,
            0x00, 0x00,
        ]
        let deflate: [UInt8] = [
            0x78, 0x9c, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0x28, 0xc9, 0x28, 0xca, 0x2f, 0x4d, 0xcf, 0x50, 0x48, 0x49,
            0x4d, 0xcb, 0x49, 0x2c, 0x49, 0x05, 0x00, 0x59, 0xe3, 0x08, 0x2b,
        ]
        for transport in Transport.allCases {
            let stubs = try Stubs {
                StubDefinition(
                    request: .get("/gzip"),
                    response: ResponseDefinition(headers: ["Content-Encoding": "gzip"], bodyData: Data(gzip))
                )
                StubDefinition(
                    request: .get("/deflate"),
                    response: ResponseDefinition(
                        headers: ["Content-Encoding": "deflate"],
                        bodyData: Data(deflate),
                        dribble: .init(chunks: 3, over: .milliseconds(100))
                    )
                )
            }
            let client = try client(of: stubs, through: transport)
            let (zipped, response) = try await client.session.data(from: client.baseURL.appendingPathComponent("gzip"))
            XCTAssertEqual(String(decoding: zipped, as: UTF8.self), "hello through gzip", "\(transport)")
            XCTAssertEqual(
                (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding"),
                "gzip",
                "\(transport)"
            )
            let (deflated, _) = try await client.session.data(from: client.baseURL.appendingPathComponent("deflate"))
            XCTAssertEqual(String(decoding: deflated, as: UTF8.self), "hello through deflate", "\(transport)")
        }
    }

    /// br and zstd: decoded through both on Linux (libcurl's own libraries), as the table in
    /// docs/testing.md says; on Apple platforms StubURLProtocol leaves them as sent.
    func testBrotliAndZstandardAsTheTableSays() async throws {
        // Hand-made streams of "hello": one uncompressed brotli meta-block, one raw zstd block.
        let brotli: [UInt8] = [0x40, 0x00, 0x10] + Array("hello".utf8) + [0x03]
        let zstd: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x05, 0x29, 0x00, 0x00] + Array("hello".utf8)
        var received: [Transport: [String]] = [:]
        for transport in Transport.allCases {
            let stubs = try Stubs {
                StubDefinition(
                    request: .get("/br"),
                    response: ResponseDefinition(headers: ["Content-Encoding": "br"], bodyData: Data(brotli))
                )
                StubDefinition(
                    request: .get("/zstd"),
                    response: ResponseDefinition(headers: ["Content-Encoding": "zstd"], bodyData: Data(zstd))
                )
            }
            let client = try client(of: stubs, through: transport)
            for coding in ["br", "zstd"] {
                let (data, _) = try await client.session.data(from: client.baseURL.appendingPathComponent(coding))
                received[transport, default: []].append(String(decoding: data, as: UTF8.self))
            }
        }
        #if canImport(FoundationNetworking)
        XCTAssertEqual(received[.urlProtocol], received[.server])
        XCTAssertEqual(received[.server], ["hello", "hello"], "libcurl here decodes both (docs/testing.md)")
        #else
        XCTAssertEqual(
            received[.urlProtocol],
            [String(decoding: brotli, as: UTF8.self), String(decoding: zstd, as: UTF8.self)]
        )
        #endif
    }

    /// The fields URLSession writes itself reach the stubs (and the journal) through both.
    func testTheJournalShowsTheFieldsURLSessionAdds() async throws {
        var seen: [Transport: [RecordedRequest]] = [:]
        for transport in Transport.allCases {
            let stubs = try Stubs {
                StubDefinition(request: RequestDefinition(path: "/fields"), response: .status(204))
            }
            let client = try client(of: stubs, through: transport) { $0.httpAdditionalHeaders = ["X-Session": "s1"] }
            var get = URLRequest(url: client.baseURL.appendingPathComponent("fields"))
            get.setValue("r1", forHTTPHeaderField: "X-Request")
            _ = try await client.session.data(for: get)
            var post = get
            post.httpMethod = "POST"
            post.httpBody = Data("a=1".utf8)
            _ = try await client.session.data(for: post)
            var delete = get
            delete.httpMethod = "DELETE"
            _ = try await client.session.data(for: delete)
            seen[transport] = try stubs.requests
        }
        let socket = try XCTUnwrap(seen[.server])
        let noSocket = try XCTUnwrap(seen[.urlProtocol])
        XCTAssertEqual(socket.count, 3)
        for (overSocket, without) in zip(socket, noSocket) {
            let names = { (r: RecordedRequest) in r.headers.map { $0.name.lowercased() }.sorted() }
            XCTAssertEqual(names(without), names(overSocket), "\(overSocket.method)")
            for field in [
                "Accept", "Accept-Encoding", "User-Agent", "Accept-Language", "Connection", "Content-Length",
                "Content-Type", "X-Session", "X-Request",
            ] {
                XCTAssertEqual(without.header(field), overSocket.header(field), "\(overSocket.method) \(field)")
            }
        }
        XCTAssertEqual(noSocket.map { $0.header("Content-Length") }, [nil, "3", "0"])
        XCTAssertNotNil(noSocket.first?.header("User-Agent"))
    }

    // MARK: Helpers

    private func text(_ answer: (Data, URLResponse)) -> String { String(decoding: answer.0, as: UTF8.self) }

    private func status(_ answer: (Data, URLResponse)) -> Int { (answer.1 as? HTTPURLResponse)?.statusCode ?? 0 }

    /// `uploadTask(withStreamedRequest:)`: the body comes from the session delegate's stream (a
    /// session of its own, with the client's configuration: swift-corelibs-foundation tells
    /// only a session's delegate, not a task's).
    private func streamedUpload(_ request: URLRequest, _ payload: Data, session: URLSession) async throws -> String {
        let delegate = StreamingDelegate(payload: payload)
        let streaming = URLSession(configuration: session.configuration, delegate: delegate, delegateQueue: nil)
        defer { streaming.finishTasksAndInvalidate() }
        return try await withCheckedThrowingContinuation { continuation in
            delegate.finished = { continuation.resume(with: $0) }
            streaming.uploadTask(withStreamedRequest: request).resume()
        }
    }
}

/// Gives a streamed upload its body and collects the answer.
private final class StreamingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: the session calls it on its serial delegate queue only.
    let payload: Data
    var received = Data()
    var finished: ((Result<String, any Error>) -> Void)?

    init(payload: Data) { self.payload = payload }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        needNewBodyStream handler: @escaping (InputStream?) -> Void
    ) {
        handler(InputStream(data: payload))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        received.append(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        finished?(error.map { .failure($0) } ?? .success(String(decoding: received, as: UTF8.self)))
        finished = nil
    }
}
