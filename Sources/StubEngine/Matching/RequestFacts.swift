import HTTP1
import JSON
import RegularExpressions
import SystemSupport

/// A request as the matcher sees it, with derived values computed at most once per request
/// however many stubs look at them (the JSON body is parsed once, not once per stub).
package final class RequestFacts {
    package let request: IncomingRequest

    package init(_ request: IncomingRequest) {
        self.request = request
    }

    /// What the OpenAPI contract said of this request (`--openapi`), set before anything
    /// answers it; the journal and the log, outside, take it from here. Set on the request's
    /// loop thread only, so without the run-time exclusivity check.
    @exclusivity(unchecked) package var contract: ContractReport?

    /// Set by the stub responder when nothing matched: the catalog and scenario states it
    /// matched against, so the near-miss report explains that very decision.
    var unmatched: (catalog: StubCatalog, scenarios: [String: String])?

    /// The path captures of the stub that answered, set only when it has webhooks to render.
    var captures: [String: String] = [:]

    /// The request's backtracking budget and the regex matches that gave up, once a stub that
    /// may use the backtracking engine is matched (nil for all others: nothing to keep).
    private(set) var regexLog: RegexBudgetLog?

    func regexBudget() -> RegexBudgetLog {
        if let regexLog { return regexLog }
        let log = RegexBudgetLog()
        regexLog = log
        return log
    }

    /// Only segment patterns need these; an exact-path hit never splits the path.
    package lazy var segments: [Substring] = PathPattern.split(request.path)

    /// The first segment, for the prefix index, without splitting the whole path.
    lazy var firstSegment: String? = {
        // By Characters, as `PathPattern.split` cuts a stub's path: a "/" followed by a
        // combining mark is one Character there, so a byte split here would look in another
        // bucket. (Since an exact-path hit usually ends the search, this runs rarely.)
        let path = request.path
        guard path.hasPrefix("/") else { return nil }
        let rest = path.dropFirst()
        return String(rest.prefix { $0 != "/" })
    }()

    /// `request.id` in WireMock templates: one UUID per request, however many tags ask.
    package lazy var templateRequestID: String = RandomUUID.lowercase()

    /// The clock reading and named values (`{{uuid 'order'}}`) the answer's templates and the
    /// stub's webhooks share: one set per request, never another request's.
    lazy var templateAnswer = TemplateAnswer()

    package lazy var bodyText: String = String(decoding: request.body, as: UTF8.self)

    /// The body parsed once, within `JSONParser.Limits.requestBody`, whatever looks at it
    /// (matchers, templates, the near-miss report).
    package lazy var parsedJSON: Result<JSONNode, JSONSyntaxError> = Result { () throws(JSONSyntaxError) in
        try JSONParser.parse(request.body, limits: .requestBody)
    }

    /// nil when the body is not JSON (or is over the limits for parsing it).
    package var json: JSONNode? { try? parsedJSON.get() }

    package var jsonError: String? {
        if request.body.isEmpty { return "an empty body" }
        guard case .failure(let error) = parsedJSON else { return nil }
        return "a body that is not JSON (at \(error.position): \(error.message))"
    }

    /// `application/x-www-form-urlencoded` fields, `+` as space.
    lazy var formFields: [(name: String, value: String)] = bodyText.split(separator: "&").map { pair in
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        return (PercentDecoding.decodeForm(parts[0]), parts.count > 1 ? PercentDecoding.decodeForm(parts[1]) : "")
    }

    package func formValues(_ name: String) -> [String] { formFields.compactMap { $0.name == name ? $0.value : nil } }

    /// A `multipart/*` body's parts with their header fields (read once, whatever looks); nil
    /// when the body is not multipart.
    package lazy var parsedMultipartBody: Result<[MultipartBody.Part], MultipartBody.Failure>? = {
        guard let type = request.headers["Content-Type"], let boundary = MultipartBody.boundary(contentType: type)
        else { return nil }
        return Result { () throws(MultipartBody.Failure) in
            try MultipartBody.parts(of: request.body, boundary: boundary)
        }
    }()

    /// A `multipart/form-data` body's fields and files (from the one read above); nil when the
    /// body is not one (`multipartProblem` says why).
    lazy var parsedMultipart: Result<[MultipartFormData.Part], MultipartFormData.Failure>? = {
        guard let type = request.headers["Content-Type"], MultipartFormData.boundary(contentType: type) != nil,
            let parsed = parsedMultipartBody
        else { return nil }
        return Result { () throws(MultipartFormData.Failure) in
            try MultipartFormData.formParts(parsed.get())
        }
    }()

    var multipartParts: [MultipartFormData.Part]? { try? parsedMultipart?.get() }

    var multipartProblem: String? {
        switch parsedMultipart {
        case nil: "not multipart/form-data (Content-Type \(request.headers["Content-Type"] ?? "none"))"
        case .failure(let failure)?: "a multipart body that does not read: \(failure)"
        case .success?: nil
        }
    }
}
