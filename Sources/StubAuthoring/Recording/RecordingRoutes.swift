#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubEngine

/// `/__admin/recordings/start`, `stop` and `status` (docs/proxy.md, "From a running server"):
/// the recorder's admin routes, plugged into the engine's admin API with it
/// (`Engine.Options.addRecorder`).
package struct RecordingRoutes: AdminRouteSet {
    let recorder: Recorder

    package init(recorder: Recorder) {
        self.recorder = recorder
    }

    package var routes: [(method: String, path: String)] {
        [
            ("POST", "/__admin/recordings/start"), ("POST", "/__admin/recordings/stop"),
            ("GET", "/__admin/recordings/status"),
        ]
    }

    /// Everything under `/__admin/recordings/`: a path or method it has no route for gets the
    /// engine's 405 or 404 (`AdminAPI.unclaimed`).
    package func claims(_ request: IncomingRequest) -> Bool {
        AdminAPI.rest(request.path)?.hasPrefix("/recordings/") == true
    }

    /// Stopping writes the recorded stubs.
    package func mayReadDisk(_ request: IncomingRequest) -> Bool {
        request.method == "POST" && AdminAPI.rest(request.path) == "/recordings/stop"
    }

    package func handle(_ request: IncomingRequest, engine: Engine) -> OutgoingResponse {
        let rest = AdminAPI.rest(request.path) ?? ""
        switch (request.method, rest) {
        case ("POST", "/recordings/start"): return start(request, engine: engine)
        case ("POST", "/recordings/stop"): return stop(engine: engine)
        case ("GET", "/recordings/status"): return status()
        default: return AdminAPI.unclaimed(request, engine: engine)
        }
    }

    private func start(_ request: IncomingRequest, engine: Engine) -> OutgoingResponse {
        let body: JSONNode
        do {
            body = request.body.isEmpty ? .object([]) : try JSONParser.parse(request.body, rejectDuplicateKeys: true)
        } catch {
            return AdminAPI.error(400, "the body is not JSON: \(error)")
        }
        let allowed: Set<String> = ["to", "out", "include", "exclude", "keepSecrets", "keepHeaders", "requestHeaders"]
        guard let members = body.members else {
            return AdminAPI.error(400, "expected an object like {\"to\": \"https://staging.example.com\"}")
        }
        if let unknown = members.first(where: { !allowed.contains($0.key) }) {
            return AdminAPI.error(
                400,
                "unknown key \"\(unknown.key)\"; the keys are \(allowed.sorted().joined(separator: ", "))"
            )
        }
        var settings = RecordingSettings(output: "")
        if let to = body["to"] {
            guard let text = to.string, let url = UpstreamURL(text) else {
                return AdminAPI.error(
                    400,
                    "\"to\" must be an http or https URL without query, such as \"https://staging.example.com/api\""
                )
            }
            var rule = engine.fallbackProxy.value ?? ProxyRule(upstream: url)
            rule.upstream = url
            settings.upstream = rule
        }
        switch output(body["out"], engine: engine) {
        case .success(let folder): settings.output = folder
        case .failure(let message): return AdminAPI.error(400, message.description)
        }
        for (key, target) in [("include", \RecordingSettings.include), ("exclude", \RecordingSettings.exclude)] {
            guard let value = body[key] else { continue }
            guard let texts = value.elements?.compactMap(\.string), texts.count == value.elements?.count,
                case let globs = texts.compactMap(PathGlob.init), globs.count == texts.count
            else {
                return AdminAPI.error(
                    400,
                    "\"\(key)\" must be an array of path globs starting with /, such as [\"/api/**\"]"
                )
            }
            settings[keyPath: target] = globs
        }
        if let keep = body["keepSecrets"] {
            guard let flag = keep.bool else { return AdminAPI.error(400, "\"keepSecrets\" must be true or false") }
            settings.keepSecrets = flag
        }
        if let names = body["keepHeaders"] {
            guard let list = names.elements?.compactMap(\.string), list.count == names.elements?.count,
                list.allSatisfy(HTTPToken.isToken)
            else {
                return AdminAPI.error(400, "\"keepHeaders\" must be an array of header names")
            }
            settings.keptHeaders = Set(list.map { $0.lowercased() })
        }
        if let names = body["requestHeaders"] {
            guard let list = names.elements?.compactMap(\.string), list.count == names.elements?.count,
                list.allSatisfy(HTTPToken.isToken)
            else {
                return AdminAPI.error(400, "\"requestHeaders\" must be an array of header names")
            }
            settings.requestHeaders = list
        }
        do {
            try recorder.start(settings, on: engine)
        } catch {
            return AdminAPI.error(error == .alreadyRecording ? 409 : 400, error.description)
        }
        return status()
    }

    /// Relative to the stub folder (no `..`); default: the stub folder itself. A server with no
    /// folder (in-process, from code) takes an absolute path.
    private func output(_ node: JSONNode?, engine: Engine) -> Result<String, RecordingError> {
        let directory = engine.options.directory
        guard let node else {
            guard let directory else {
                return .failure(.cannotWrite("this server has no stub folder: give \"out\", an absolute path"))
            }
            return .success(directory)
        }
        guard let text = node.string, !text.isEmpty else {
            return .failure(.cannotWrite("\"out\" must be a folder path"))
        }
        if text.hasPrefix("/") {
            guard directory == nil else {
                return .failure(
                    .cannotWrite("\"out\" must be a folder inside the stub folder (\(directory!)), relative to it")
                )
            }
            return .success(text)
        }
        guard !text.split(separator: "/").contains("..") else {
            return .failure(.cannotWrite("\"out\" may not leave the stub folder (no ..)"))
        }
        return .success((directory ?? FileManager.default.currentDirectoryPath) + "/" + text)
    }

    private func stop(engine: Engine) -> OutgoingResponse {
        do {
            let report = try recorder.stop(on: engine)
            return AdminAPI.json(
                200,
                .object([
                    ("written", .array(report.written.map(JSONNode.string))),
                    ("out", .string(report.output)),
                    ("stubs", .number(report.stubCount)),
                    ("exchanges", .number(report.exchangeCount)),
                    ("skipped", .array(report.skipped.map(JSONNode.string))),
                    (
                        "droppedSecrets",
                        .object(
                            report.droppedSecrets.sorted { $0.key < $1.key }.map { ($0.key, JSONNode.number($0.value)) }
                        )
                    ),
                ])
            )
        } catch {
            return AdminAPI.error(error == .notRecording ? 409 : 500, error.description)
        }
    }

    private func status() -> OutgoingResponse {
        let status = recorder.status
        var members: [(String, JSONNode)] = [("recording", .bool(status.recording))]
        if let upstream = status.upstream { members.append(("upstream", .string(upstream))) }
        if let output = status.output { members.append(("out", .string(output))) }
        members.append(("captured", .number(status.captured)))
        members.append(("inFlight", .number(status.inFlight)))
        return AdminAPI.json(200, .object(members))
    }
}
