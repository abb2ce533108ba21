import HTTP1

/// What a stream's templates see, kept in a form that may cross threads: a `TemplateContext`
/// holds the request's facts, which are computed lazily on one thread, so a stream makes a
/// context where it renders (the timer queue, a connection's loop) instead of sharing one.
struct TemplateInputs: Sendable {
    let request: IncomingRequest
    let captures: [String: String]
    let fallbackBaseURL: String
    let maximumRenderedBytes: Int
    /// Named values hold for the whole stream; each event reads the clock when it is rendered.
    let answer = TemplateAnswer()

    /// `message`: a WebSocket message, for `message.text` and `message.json`.
    func context(message: RequestFacts? = nil) -> TemplateContext {
        TemplateContext(
            facts: RequestFacts(request),
            captures: captures,
            fallbackBaseURL: fallbackBaseURL,
            maximumRenderedBytes: maximumRenderedBytes,
            message: message,
            answer: answer.nextEvent()
        )
    }
}
