// libFuzzer target for multipart bodies (`MultipartBody`, any `multipart/*`, and
// `MultipartFormData` over it): request bodies are outside input, read by the stub format's
// `multipart` matcher and WireMock's `multipartPatterns`. Not part of the package
// (SwiftPM ignores this folder): scripts/fuzz compiles this file together with Sources/HTTP1
// as one module.
//
// Input: a boundary, a 0xFF byte (never in UTF-8), then the body. Without a separator the
// whole input is the body and a fixed boundary is used.
//
// Invariants (a violation is a precondition failure, which libFuzzer saves as a crash):
//  1. reading a boundary from a Content-Type and parts from a body never traps;
//  2. each part's body is a slice of the body, after the one before it;
//  3. the same input gives the same parts (or the same refusal) twice;
//  4. the form reader reads what the general reader reads, or refuses a part's head: it never
//     reads a body the general reader refuses, and its parts carry the general parts' bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let separator = input.firstIndex(of: 0xFF)
    let boundary = separator.map { String(decoding: input[..<$0], as: UTF8.self) } ?? "XyZ"
    let body = Array(separator.map { input[($0 + 1)...] } ?? input[...])
    for type in [
        "multipart/form-data; boundary=\(boundary)", "multipart/form-data; boundary=\"\(boundary)\"",
        "multipart/mixed; boundary=\(boundary)", String(decoding: body.prefix(64), as: UTF8.self),
    ] {
        _ = MultipartFormData.boundary(contentType: type)
        _ = MultipartBody.boundary(contentType: type)
    }
    let general = Result { () throws(MultipartBody.Failure) in
        try MultipartBody.parts(of: body, boundary: boundary)
    }
    let first = Result { () throws(MultipartFormData.Failure) in
        try MultipartFormData.parts(of: body, boundary: boundary)
    }
    let second = Result { () throws(MultipartFormData.Failure) in
        try MultipartFormData.parts(of: body, boundary: boundary)
    }
    switch (first, second) {
    case (.success(let parts), .success(let again)):
        precondition(parts == again, "two answers")
        var searchFrom = 0
        for part in parts where !part.body.isEmpty {
            guard let at = MultipartBody.find(part.body, in: body, from: searchFrom) else {
                preconditionFailure("a part's body is not in the body after the one before")
            }
            searchFrom = at + part.body.count
        }
        guard case .success(let read) = general else { preconditionFailure("the form reader read a refused body") }
        precondition(parts.map(\.body) == read.map(\.body), "the form parts are not the general parts")
    case (.failure(let error), .failure(let again)):
        precondition(error == again, "two refusals: \(error), \(again)")
        switch general {
        case .failure(let refusal):
            precondition(refusal == error, "the form reader refused otherwise: \(error), \(refusal)")
        case .success:
            guard case .badPartHead = error else {
                preconditionFailure("the form reader refused a body the general reader reads, not for a part's head")
            }
        }
    default:
        preconditionFailure("an answer and a refusal for the same input")
    }
    return 0
}
