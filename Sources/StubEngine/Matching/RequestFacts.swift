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

    /// What is worked out only when something asks, in one object made the first time: a request
    /// answered by an exact path's precomputed stub asks for none of it. As a dozen stored
    /// properties, freeing the facts destroyed each of them on every request (callgrind: some
    /// 700 instructions a request, a sixth of the engine's part).
    private final class Derived {
        var unmatched: (catalog: StubCatalog, scenarios: [String: String])?
        var captures: [String: String] = [:]
        var regexLog: RegexBudgetLog?
        var segments: [Substring]?
        var firstSegment: String??
        var templateRequestID: String?
        var templateAnswer: TemplateAnswer?
        var bodyText: String?
        var parsedJSON: Result<JSONNode, JSONSyntaxError>?
        var formFields: [(name: String, value: String)]?
        var parsedMultipartBody: Result<[MultipartBody.Part], MultipartBody.Failure>??
        var parsedMultipart: Result<[MultipartFormData.Part], MultipartFormData.Failure>??
    }

    /// Set and read on the request's loop thread (or by the one task a near-miss report runs
    /// in, after the loop let go of the request), so without the run-time exclusivity check.
    @exclusivity(unchecked) private var derivedStorage: Derived?

    private var derived: Derived {
        if let derivedStorage { return derivedStorage }
        let made = Derived()
        derivedStorage = made
        return made
    }

    /// Set by the stub responder when nothing matched: the catalog and scenario states it
    /// matched against, so the near-miss report explains that very decision.
    var unmatched: (catalog: StubCatalog, scenarios: [String: String])? {
        get { derivedStorage?.unmatched }
        set { derived.unmatched = newValue }
    }

    /// The path captures of the stub that answered, set only when it has webhooks to render.
    var captures: [String: String] {
        get { derivedStorage?.captures ?? [:] }
        set { derived.captures = newValue }
    }

    /// The request's backtracking budget and the regex matches that gave up, once a stub that
    /// may use the backtracking engine is matched (nil for all others: nothing to keep).
    var regexLog: RegexBudgetLog? { derivedStorage?.regexLog }

    func regexBudget() -> RegexBudgetLog {
        let derived = self.derived
        if let log = derived.regexLog { return log }
        let log = RegexBudgetLog()
        derived.regexLog = log
        return log
    }

    /// Only segment patterns need these; an exact-path hit never splits the path.
    package var segments: [Substring] {
        let derived = self.derived
        if let segments = derived.segments { return segments }
        let segments = PathPattern.split(request.path)
        derived.segments = segments
        return segments
    }

    /// The first segment, for the prefix index, without splitting the whole path.
    var firstSegment: String? {
        let derived = self.derived
        if let firstSegment = derived.firstSegment { return firstSegment }
        // As `PathPattern.split` cuts a stub's path (by Characters: a "/" followed by a
        // combining mark is one Character there, so a plain byte split would look in another
        // bucket).
        let first = PathPattern.firstSegment(of: request.path)
        derived.firstSegment = .some(first)
        return first
    }

    /// `request.id` in WireMock templates: one UUID per request, however many tags ask.
    package var templateRequestID: String {
        let derived = self.derived
        if let id = derived.templateRequestID { return id }
        let id = RandomUUID.lowercase()
        derived.templateRequestID = id
        return id
    }

    /// The clock reading and named values (`{{uuid 'order'}}`) the answer's templates and the
    /// stub's webhooks share: one set per request, never another request's.
    var templateAnswer: TemplateAnswer {
        let derived = self.derived
        if let answer = derived.templateAnswer { return answer }
        let answer = TemplateAnswer()
        derived.templateAnswer = answer
        return answer
    }

    package var bodyText: String {
        let derived = self.derived
        if let text = derived.bodyText { return text }
        let text = String(decoding: request.body, as: UTF8.self)
        derived.bodyText = text
        return text
    }

    /// The body parsed once, within `JSONParser.Limits.requestBody`, whatever looks at it
    /// (matchers, templates, the near-miss report).
    package var parsedJSON: Result<JSONNode, JSONSyntaxError> {
        let derived = self.derived
        if let parsed = derived.parsedJSON { return parsed }
        let parsed = Result { () throws(JSONSyntaxError) in
            try JSONParser.parse(request.body, limits: .requestBody)
        }
        derived.parsedJSON = parsed
        return parsed
    }

    /// nil when the body is not JSON (or is over the limits for parsing it).
    package var json: JSONNode? { try? parsedJSON.get() }

    package var jsonError: String? {
        if request.body.isEmpty { return "an empty body" }
        guard case .failure(let error) = parsedJSON else { return nil }
        return "a body that is not JSON (at \(error.position): \(error.message))"
    }

    /// `application/x-www-form-urlencoded` fields, `+` as space.
    var formFields: [(name: String, value: String)] {
        let derived = self.derived
        if let fields = derived.formFields { return fields }
        let fields = bodyText.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (PercentDecoding.decodeForm(parts[0]), parts.count > 1 ? PercentDecoding.decodeForm(parts[1]) : "")
        }
        derived.formFields = fields
        return fields
    }

    package func formValues(_ name: String) -> [String] { formFields.compactMap { $0.name == name ? $0.value : nil } }

    /// A `multipart/*` body's parts with their header fields (read once, whatever looks); nil
    /// when the body is not multipart.
    package var parsedMultipartBody: Result<[MultipartBody.Part], MultipartBody.Failure>? {
        let derived = self.derived
        if let parsed = derived.parsedMultipartBody { return parsed }
        var parsed: Result<[MultipartBody.Part], MultipartBody.Failure>?
        if let type = request.headers["Content-Type"], let boundary = MultipartBody.boundary(contentType: type) {
            parsed = Result { () throws(MultipartBody.Failure) in
                try MultipartBody.parts(of: request.body, boundary: boundary)
            }
        }
        derived.parsedMultipartBody = .some(parsed)
        return parsed
    }

    /// A `multipart/form-data` body's fields and files (from the one read above); nil when the
    /// body is not one (`multipartProblem` says why).
    var parsedMultipart: Result<[MultipartFormData.Part], MultipartFormData.Failure>? {
        let derived = self.derived
        if let parsed = derived.parsedMultipart { return parsed }
        var parsed: Result<[MultipartFormData.Part], MultipartFormData.Failure>?
        if let type = request.headers["Content-Type"], MultipartFormData.boundary(contentType: type) != nil,
            let body = parsedMultipartBody
        {
            parsed = Result { () throws(MultipartFormData.Failure) in
                try MultipartFormData.formParts(body.get())
            }
        }
        derived.parsedMultipart = .some(parsed)
        return parsed
    }

    var multipartParts: [MultipartFormData.Part]? { try? parsedMultipart?.get() }

    var multipartProblem: String? {
        switch parsedMultipart {
        case nil: "not multipart/form-data (Content-Type \(request.headers["Content-Type"] ?? "none"))"
        case .failure(let failure)?: "a multipart body that does not read: \(failure)"
        case .success?: nil
        }
    }
}
