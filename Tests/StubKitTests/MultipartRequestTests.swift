import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import XCTest

/// Issue 36, item 5: `.multipart` matches an upload's fields and files by name, through both
/// transports, and `verify` finds it.
final class MultipartRequestTests: XCTestCase {
    func testFieldsAndFilesByNameThroughBothTransports() async throws {
        for transport in Transport.allCases {
            let stubs = try Stubs {
                StubDefinition(
                    request: .post(
                        "/v1/photos",
                        body: .multipart(
                            fields: ["caption": "Holiday", "album": .present],
                            files: [
                                "photo": FileMatcher(filename: .matches(".+\\.jpg"), contentType: "image/jpeg"),
                                "thumbnail": .absent,
                            ]
                        )
                    ),
                    response: .status(201)
                )
                StubDefinition(request: .post("/v1/photos"), response: .status(422))
            }
            let client = try client(of: stubs, through: transport)
            let good = try await upload(client, fields: ["caption": "Holiday", "album": "2026"], file: "beach.jpg")
            XCTAssertEqual(good, 201, "\(transport)")
            let wrongType = try await upload(
                client,
                fields: ["caption": "Holiday", "album": "2026"],
                file: "beach.png"
            )
            XCTAssertEqual(wrongType, 422, "\(transport)")
            let noAlbum = try await upload(client, fields: ["caption": "Holiday"], file: "beach.jpg")
            XCTAssertEqual(noAlbum, 422, "\(transport)")
            stubs.verify(.post("/v1/photos", body: .multipart(files: ["photo": FileMatcher()])), count: 3)
            stubs.verify(.post("/v1/photos", body: .multipart(fields: ["caption": .contains("Holi")])), count: 3)
        }
    }

    func testARequestDefinitionWritesTheStubFormat() throws {
        XCTAssertThrowsError(
            try Stubs { StubDefinition(request: .post("/x", body: .multipart()), response: .status(204)) }
        ) {
            XCTAssertTrue("\($0)".contains("at least one field"), "\($0)")
        }
    }

    /// A multipart body as URLSession clients build it by hand: CRLF lines, a random boundary.
    private func upload(_ client: ExampleClient, fields: [String: String], file: String) async throws -> Int {
        let boundary = "Boundary-\(UUID().uuidString)"
        var body = Data()
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            body.append(
                Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
            )
        }
        let type = file.hasSuffix(".jpg") ? "image/jpeg" : "image/png"
        let head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"\(file)\"\r\n"
        body.append(Data((head + "Content-Type: \(type)\r\n\r\n").utf8))
        body.append(Data([0xFF, 0xD8, 0xFF, 0x00, 0x0D, 0x0A]))
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        var request = URLRequest(url: client.baseURL.appendingPathComponent("v1/photos"))
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        let (_, response) = try await client.session.upload(for: request, from: body)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}
