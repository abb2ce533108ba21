import StubEngine

/// Recording sessions: forwarding what no stub matches and writing what came back as stub
/// files (`stubserver record`, `POST /__admin/recordings/start|stop`, `GET .../status`).
/// The engine is the one the recorder is plugged into (`Engine.Options.addRecorder`): a session
/// points its fallback upstream at the recorded server and puts the old one back at the end.
package enum RecordingError: Error, Equatable, CustomStringConvertible {
    case alreadyRecording
    case noUpstream
    case notRecording
    case cannotWrite(String)

    package var description: String {
        switch self {
        case .alreadyRecording: "a recording is already running; stop it first"
        case .noUpstream: "nothing to record from: give an upstream (\"to\") or start the server with --proxy"
        case .notRecording: "no recording is running"
        case .cannotWrite(let why): why
        }
    }
}

/// What a stopped recording wrote.
package struct RecordingReport: Sendable {
    /// Relative to the output folder, stub files first then body files, in the plan's order.
    package var written: [String]
    package var output: String
    package var stubCount: Int
    package var exchangeCount: Int
    /// Exchanges that could not be recorded, and why.
    package var skipped: [String]
    /// Secret fields left out, by lower-cased name.
    package var droppedSecrets: [String: Int]
}

extension Engine.Options {
    /// Records through `recorder`: it follows the exchanges forwarded because no stub answered
    /// them, and the admin API answers `/__admin/recordings/...` with it (`RecordingRoutes`).
    package mutating func addRecorder(_ recorder: Recorder) {
        exchangeObservers.append(recorder)
        adminRoutes.append(RecordingRoutes(recorder: recorder))
    }
}

extension Recorder {
    /// Starts recording: unmatched requests go to `settings.upstream` (or the server's own
    /// `--proxy`) and are kept until `stop`.
    package func start(_ settings: RecordingSettings, on engine: Engine) throws(RecordingError) {
        var settings = settings
        let previous = engine.fallbackProxy.value
        let rule = settings.upstream ?? previous
        guard rule != nil || settings.forwardProxy else { throw .noUpstream }
        settings.upstream = rule
        guard begin(settings, previousRule: previous) else { throw .alreadyRecording }
        engine.fallbackProxy.value = rule
    }

    /// Stops recording and writes what it kept into the output folder (never replacing a file
    /// there; see `StubFolderWriter`). Reads and writes the disk: call it off the event loops.
    package func stop(on engine: Engine) throws(RecordingError) -> RecordingReport {
        guard let harvest = end() else { throw .notRecording }
        engine.fallbackProxy.value = harvest.previousRule
        let output = harvest.settings.output
        let existing = StubFolderWriter.existingNames(in: output)
        var planner = ExchangeStubPlanner(
            bodyConditions: .always,
            keepSecrets: harvest.settings.keepSecrets,
            reservedStubNames: existing.stubs,
            reservedBodyNames: existing.bodies
        )
        planner.keptHeaders = harvest.settings.keptHeaders
        let plan = planner.plan(harvest.exchanges)
        let written: [String]
        do {
            written = try StubFolderWriter.write(plan, into: output, existing: .keep).paths
        } catch {
            throw .cannotWrite(error.description)
        }
        return RecordingReport(
            written: written,
            output: output,
            stubCount: plan.stubCount,
            exchangeCount: harvest.exchanges.count,
            skipped: harvest.skipped,
            droppedSecrets: planner.droppedSecrets
        )
    }
}
