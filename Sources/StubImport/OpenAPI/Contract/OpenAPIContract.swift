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
/// and security requirements with every `$ref` followed, and every schema compiled
/// (`SchemaValidator.compile`: references resolved, patterns compiled), so a check reads no
/// file and compiles nothing.
///
/// The validator and the document set cache what they resolve and are not thread-safe; a check
/// holds the one lock while it runs. The request path of a contract check is short (a few
/// schemas against small values), so the event loops rarely wait for each other there.
package final class OpenAPIContract: RequestContract {
    /// The document's name, as messages say it.
    package let name: String
    package let operationCount: Int
    private let state: Locked<Checker>

    /// What the check reads and writes, only under the lock. A class: a check borrows it whole.
    final class Checker: @unchecked Sendable {
        let documents: DocumentSet
        let validator: SchemaValidator
        let routes: RouteTable
        let index: RequestRouteIndex
        let operations: [OperationContract]
        /// Each operation's report for a request that keeps to it, made once: a clean request
        /// allocates nothing (a forwarded one gets its own, `ContractReport.forAnswer`).
        let cleanReports: [ContractReport]
        /// By route number, each documented method's operation: a route documents a handful,
        /// compared in turn (cheaper than hashing the method).
        let operationsByRoute: [[(method: String, operation: Int)]]
        let values: ParameterValues
        /// By operation number, what each `Content-Type` met so far picks among its body's
        /// media types (`MediaChoice`), so the essence is worked out once per distinct value.
        /// Written only under the contract's lock, hence without the run-time exclusivity check.
        @exclusivity(unchecked) var mediaChoices: [[MediaChoice]]

        init(
            documents: DocumentSet,
            validator: SchemaValidator,
            routes: RouteTable,
            index: RequestRouteIndex,
            operations: [OperationContract],
            cleanReports: [ContractReport],
            operationsByRoute: [[(method: String, operation: Int)]],
            values: ParameterValues
        ) {
            self.documents = documents
            self.validator = validator
            self.routes = routes
            self.index = index
            self.operations = operations
            self.cleanReports = cleanReports
            self.operationsByRoute = operationsByRoute
            self.values = values
            mediaChoices = Array(repeating: [], count: operations.count)
        }

        /// The operation `method` names on a route; HEAD is answered by a documented GET.
        func operation(_ method: String, route: Int) -> Int? {
            let byMethod = operationsByRoute[route]
            if let found = byMethod.first(where: { $0.method == method }) { return found.operation }
            guard method == "HEAD" else { return nil }
            return byMethod.first { $0.method == "GET" }?.operation
        }
    }

    package init(document: OpenAPIDocument) {
        let documents = document.documents
        let found = OperationCatalog.operations(in: document).operations
        let routes = RouteTable(found)
        let validator = SchemaValidator(documents: documents, dialect: document.dialect)
        let operations = found.map {
            OperationContract($0, documents: documents, root: document.root, validator: validator)
        }
        for operation in operations {
            for (_, response) in operation.operation.node["responses"]?.members ?? [] {
                guard let response = documents.dereference(response) else { continue }
                for (_, media) in response["content"]?.members ?? [] {
                    if let schema = documents.dereference(media)?["schema"] { _ = validator.compile(schema) }
                }
            }
        }
        // Every schema a check reads is compiled: the body text check's plan is made now, not
        // by the first request.
        validator.prepareTextChecks()
        name = document.displayName
        operationCount = operations.count
        state = Locked(
            Checker(
                documents: documents,
                validator: validator,
                routes: routes,
                index: RequestRouteIndex(routes),
                operations: operations,
                cleanReports: operations.enumerated().map { i, operation in
                    ContractReport(operation: operation.title, operationIndex: i, violations: [])
                },
                operationsByRoute: Self.operationsByRoute(operations, routes),
                values: ParameterValues(documents: documents)
            )
        )
    }

    /// For each route, its methods' operations (the first where a document repeats one).
    private static func operationsByRoute(
        _ operations: [OperationContract],
        _ routes: RouteTable
    ) -> [[(method: String, operation: Int)]] {
        var routeByPath: [String: Int] = [:]
        for (i, route) in routes.routes.enumerated() where routeByPath[route.path] == nil {
            routeByPath[route.path] = i
        }
        var table = [[(method: String, operation: Int)]](repeating: [], count: routes.routes.count)
        for (i, operation) in operations.enumerated() {
            guard let route = routeByPath[operation.operation.path] else { continue }
            let method = operation.operation.method
            if !table[route].contains(where: { $0.method == method }) { table[route].append((method, i)) }
        }
        return table
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
/// its length (a document has hundreds of paths; a request meets a handful of them). A class:
/// a check reads its tables in place, never copies them out of the contract.
final class RequestRouteIndex {
    struct Entry {
        let route: Int
        let template: PathTemplate
    }

    private let bySegmentCount: [Int: [Entry]]
    /// Templates without parameters by their (decoded) path: the first such route for a path,
    /// which no other template can beat (every segment a literal is the best score there is).
    /// Found by the path's bytes when it is ASCII, as the stub catalog finds exact paths:
    /// hashing a `String` (SipHash, over its canonical form) cost more than the rest of finding
    /// the route.
    private let literalPaths: LiteralIndex
    /// Each route's documented methods (`GET`, `POST`), by route number: a handful, compared
    /// in turn.
    private let methods: [[String]]

    init(_ routes: RouteTable) {
        var bySegmentCount: [Int: [Entry]] = [:]
        let literalPaths = LiteralIndex()
        var methods: [[String]] = []
        for (i, route) in routes.routes.enumerated() {
            methods.append(route.methods)
            for template in route.templates {
                let decoded = template.decodingLiterals()
                bySegmentCount[template.segments.count, default: []].append(Entry(route: i, template: decoded))
                if let path = decoded.literalPath, literalPaths.bucket(path) == nil { literalPaths.append(i, at: path) }
            }
        }
        self.bySegmentCount = bySegmentCount
        self.literalPaths = literalPaths
        self.methods = methods
    }

    /// The route whose template fits best (literal segments count most) among those that
    /// document `method`, with the values of its path parameters. Documents write one
    /// path twice under different parameter names, one method each (Temporal: `GET
    /// .../workflows/{execution.workflow_id}` and `POST .../workflows/{workflowId}`), or a
    /// literal segment where another route has a parameter, so the best fit by path alone can
    /// be a route without the method while another that fits has it. When no fitting route
    /// documents the method, the best fit overall, so the check can say which methods it has.
    func match(_ path: String, method: String) -> (route: Int, values: [String: String])? {
        if let route = literalPaths.bucket(path)?.first, documents(method, route) { return (route, [:]) }
        guard path.hasPrefix("/") else { return nil }
        let segments = PathPattern.split(path)
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
