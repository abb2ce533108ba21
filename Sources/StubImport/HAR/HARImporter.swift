#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import JSONSchema
import StubAuthoring
import StubEngine

/// Options of `stubserver import har`.
package struct HARImportOptions: Sendable, Equatable {
    /// Only entries for these hosts (any case, without port); all when empty.
    package var hosts: [String] = []
    /// Keep cookies, credentials and tokens (`RecordedFields.isSecret`) in the stubs.
    package var keepSecrets = false

    package init(hosts: [String] = [], keepSecrets: Bool = false) {
        self.hosts = hosts
        self.keepSecrets = keepSecrets
    }
}

/// `stubserver import har`: recorded traffic replayed. Each entry becomes a response of a stub
/// that matches its method, path and query parameters (each parameter's first value, exactly).
/// Entries whose conditions come out the same are one stub whose `responses` replay them in
/// capture order; where entries differ only by request body, each body becomes a `jsonEquals`
/// (JSON) or `equals` (text) condition. One stub file per method and path.
package enum HARImporter {
    package struct Outcome {
        package var plan = ImportPlan()
        package var entryCount = 0
        package var importedEntries = 0
        package var skipped: [(reason: String, count: Int)] = []
        package var droppedSecrets: [String: Int] = [:]
    }

    package static func plan(
        _ bytes: [UInt8],
        name: String,
        options: HARImportOptions = .init()
    ) -> Result<Outcome, ImportProblem> {
        let root: JSONNode
        switch ImportProblem.parsedJSON(bytes, file: name, notA: "not a HAR file (HAR is JSON)") {
        case .success(let node): root = node
        case .failure(let problem): return .failure(problem)
        }
        return HARArchive.entries(root, file: name).map { decoded in
            var outcome = Outcome()
            outcome.entryCount = decoded.entries.count + decoded.malformed.count
            for bad in decoded.malformed {
                skip("malformed entry (\(bad.reason))", bad.node, name, &outcome)
            }
            var exchanges: [RecordedExchange] = []
            for entry in decoded.entries {
                switch HARRecording.make(entry, options: options) {
                case .success(let recording): exchanges.append(recording.exchange)
                case .failure(let reason): skip(reason.message, entry.node, name, &outcome)
                }
            }
            outcome.importedEntries = exchanges.count
            // The recorder's planner: bodies become conditions only where they tell entries
            // apart (an archive's bodies often carry timestamps).
            var planner = ExchangeStubPlanner(bodyConditions: .whenTheyDiffer, keepSecrets: options.keepSecrets)
            outcome.plan.output = planner.plan(exchanges)
            outcome.droppedSecrets = planner.droppedSecrets
            return outcome
        }
    }

    static func skip(_ reason: String, _ node: JSONNode, _ file: String, _ outcome: inout Outcome) {
        if let index = outcome.skipped.firstIndex(where: { $0.reason == reason }) {
            outcome.skipped[index].count += 1
        } else {
            outcome.skipped.append((reason, 1))
        }
        outcome.plan.problems.append(
            ImportProblem(.note, file: file, position: node.position, message: "entry skipped: \(reason)")
        )
    }
}

extension HARImporter.Outcome {
    /// `12 stubs from 14 entries in 9 files (5 body files); 2 entries skipped (...)`.
    package var summary: String {
        let bodies = plan.bodyFiles.count
        var text =
            """
            \(SchemaWording.plural(plan.stubCount, "stub")) from \
            \(SchemaWording.plural(importedEntries, "entry")) in \
            \(SchemaWording.plural(plan.stubFiles.count, "file"))
            """
        if bodies > 0 { text += " (and \(SchemaWording.plural(bodies, "body file")) in __files/)" }
        let skippedCount = skipped.reduce(0) { $0 + $1.count }
        if skippedCount > 0 {
            text +=
                "; \(SchemaWording.plural(skippedCount, "entry")) skipped ("
                + skipped.map { "\($0.count): \($0.reason)" }.joined(separator: "; ") + ")"
        }
        if !droppedSecrets.isEmpty {
            let list = droppedSecrets.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)×" }.joined(
                separator: ", "
            )
            text += "; secret headers left out: \(list) (--keep-secrets keeps them)"
        }
        return text
    }
}
