import HTTP1
import JSONSchema
import StubEngine
import SystemSupport

/// An OpenAPI document as the engine's `RequestContract` (`--openapi SPEC` while serving,
/// StubKit's `Stubs(openAPI:)`): a request is checked against the operation it targets (its
/// path and query parameters, headers, cookies, security and body), a forwarded answer against
/// the operation's documented responses.
///
/// Everything that can be read ahead is read at load: the operations, their parameters, bodies
/// and security requirements with every `$ref` followed, and every schema's references and
/// patterns (`SchemaValidator.prepare`), so a check reads no file and compiles nothing.
///
/// The validator and the document set cache what they resolve and are not thread-safe; a check
/// holds the one lock while it runs. The request path of a contract check is short (a few
/// schemas against small values), so the event loops rarely wait for each other there.
package final class OpenAPIContract: RequestContract {
    /// The document's name, as messages say it.
    package let name: String
    package let operationCount: Int
    private let state: Locked<Checker>

    /// What the check reads and writes, only under the lock.
    struct Checker: @unchecked Sendable {
        let documents: DocumentSet
        let validator: SchemaValidator
        let routes: RouteTable
        let index: RequestRouteIndex
        let operations: [OperationContract]
        /// `GET /pets` (the document's path) to the operation's index.
        let operationIndex: [String: Int]
        let values: ParameterValues
    }

    package init(document: OpenAPIDocument) {
        let documents = document.documents
        let found = OperationCatalog.operations(in: document).operations
        let routes = RouteTable(found)
        let operations = found.map { OperationContract($0, documents: documents, root: document.root) }
        let validator = SchemaValidator(documents: documents, dialect: document.dialect)
        for operation in operations {
            for parameter in operation.parameters {
                if let schema = parameter.schema { validator.prepare(schema) }
            }
            for media in operation.body?.media ?? [] {
                if let schema = media.schema { validator.prepare(schema) }
            }
            for (_, response) in operation.operation.node["responses"]?.members ?? [] {
                guard let response = documents.dereference(response) else { continue }
                for (_, media) in response["content"]?.members ?? [] {
                    if let schema = documents.dereference(media)?["schema"] { validator.prepare(schema) }
                }
            }
        }
        name = document.displayName
        operationCount = operations.count
        state = Locked(
            Checker(
                documents: documents,
                validator: validator,
                routes: routes,
                index: RequestRouteIndex(routes),
                operations: operations,
                operationIndex: Dictionary(
                    operations.enumerated().map {
                        ("\($0.element.operation.method) \($0.element.operation.path)", $0.offset)
                    },
                    uniquingKeysWith: { first, _ in first }
                ),
                values: ParameterValues(documents: documents)
            )
        )
    }

    /// The problems met reading the document (references that do not resolve, patterns that
    /// do not compile), for the command line to print at start.
    package var problems: [ImportProblem] { state.withLock { $0.documents.problems } }

    /// The operations as the check reads them (for tests that make requests from them).
    var operations: [OperationContract] { state.withLock { $0.operations } }

    package func check(_ facts: RequestFacts) -> ContractReport {
        state.withLock { checker in
            var check = RequestCheck(checker: checker, documentName: name)
            return check.run(facts)
        }
    }

    package func checkAnswer(
        status: Int,
        headers: HeaderFields,
        body: [UInt8]?,
        of report: ContractReport
    ) -> [ContractViolation] {
        guard let index = report.operationIndex else { return [] }
        return state.withLock { checker in
            AnswerCheck(checker: checker, operation: checker.operations[index])
                .run(status: status, headers: headers, body: body)
        }
    }
}

/// The routes by number of segments, so a request's path is compared only with templates of
/// its length (a document has hundreds of paths; a request meets a handful of them).
struct RequestRouteIndex {
    struct Entry {
        let route: Int
        let template: PathTemplate
    }

    private var bySegmentCount: [Int: [Entry]] = [:]
    /// Each route's documented methods (`GET`, `POST`), by route number.
    private var methods: [Set<String>] = []

    init(_ routes: RouteTable) {
        for (i, route) in routes.routes.enumerated() {
            methods.append(Set(route.methods))
            for template in route.templates {
                bySegmentCount[template.segments.count, default: []].append(Entry(route: i, template: template))
            }
        }
    }

    /// The route whose template fits best (literal segments count most) among those that
    /// document `method`, with the values of its path parameters. Documents write one
    /// path twice under different parameter names, one method each (Temporal: `GET
    /// .../workflows/{execution.workflow_id}` and `POST .../workflows/{workflowId}`), or a
    /// literal segment where another route has a parameter, so the best fit by path alone can
    /// be a route without the method while another that fits has it. When no fitting route
    /// documents the method, the best fit overall, so the check can say which methods it has.
    func match(_ path: String, method: String) -> (route: Int, values: [String: String])? {
        guard path.hasPrefix("/") else { return nil }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        var best: (route: Int, values: [String: String], score: Int)?
        var bestWithMethod: (route: Int, values: [String: String], score: Int)?
        for entry in bySegmentCount[segments.count] ?? [] {
            guard let (score, values) = entry.template.capture(segments) else { continue }
            if score > (best?.score ?? -1) { best = (entry.route, values, score) }
            if score > (bestWithMethod?.score ?? -1), documents(method, entry.route) {
                bestWithMethod = (entry.route, values, score)
            }
        }
        return (bestWithMethod ?? best).map { ($0.route, $0.values) }
    }

    /// Whether the route documents the method; HEAD is answered by a documented GET.
    private func documents(_ method: String, _ route: Int) -> Bool {
        methods[route].contains(method) || (method == "HEAD" && methods[route].contains("GET"))
    }
}
