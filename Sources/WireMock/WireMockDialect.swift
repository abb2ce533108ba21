#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StubEngine
import SystemSupport

/// How a server speaks WireMock (docs/wiremock.md).
package struct WireMockOptions: Sendable {
    /// Which dialect answers the admin routes both have (`/__admin/requests`, `/health`, ...)
    /// when a request does not say: WireMock's when the server serves a WireMock folder.
    package var adminDialect = AdminDialect.native
    /// `POST /__admin/shutdown` stops the server (`--allow-shutdown`); otherwise it is refused.
    package var allowShutdown = false
    /// Every mapping's response is a template, as with WireMock's `--global-response-templating`.
    package var globalTemplating = false

    package init() {}
}

/// The two admin dialects on one port.
package enum AdminDialect: String, Sendable {
    case native, wiremock
}

extension StubDialect {
    /// A WireMock mapping: of equal priority, the most recently added wins (WireMock's rule).
    package static let wiremock = StubDialect(name: "wiremock", ranksBySpecificity: false)
}

/// The WireMock dialect as one server runs it: how it is set, the order of the mappings added
/// at run time, and the hook that stops the server. The engine knows nothing of it: whoever
/// makes the engine (the command line) plugs its parts in, the folder format
/// (`Engine.Options.folderFormat`) and the admin API (`Engine.Options.adminRoutes`).
package final class WireMockDialect: Sendable {
    package let options: WireMockOptions
    /// Counts mappings added at run time: WireMock serves the most recent of equal priority, so
    /// each new one ranks before the ones before it.
    private let sequence = Locked(0)
    /// Stops the server (set by whoever runs it), for `POST /__admin/shutdown`.
    package let shutdown = Locked<(@Sendable () -> Void)?>(nil)

    package init(_ options: WireMockOptions = WireMockOptions()) {
        self.options = options
    }

    /// WireMock folders read with these options.
    package var folderFormat: WireMockFolderFormat {
        WireMockFolderFormat(globalTemplating: options.globalTemplating)
    }

    /// WireMock's admin API, for `Engine.Options.adminRoutes`.
    package var adminRoutes: WireMockAdminRoutes {
        WireMockAdminRoutes(dialect: self)
    }

    /// The order value of the next mapping added at run time: lower than every earlier one.
    func nextOrder() -> Int {
        sequence.withLock { n in
            n += 1
            return -n
        }
    }
}

/// A WireMock folder (`mappings/` and `__files/`) as a folder format of the engine's loader:
/// `--wiremock DIR`, or `--dir` naming one.
package struct WireMockFolderFormat: StubFolderFormat {
    package static let name = "wiremock"
    /// Every mapping's response is a template (`--global-response-templating`).
    package let globalTemplating: Bool

    package init(globalTemplating: Bool = false) {
        self.globalTemplating = globalTemplating
    }

    package var name: String { Self.name }
    package var folderDescription: String { "a WireMock folder" }
    package var recognisedNote: String { "is a WireMock folder (it has mappings/): serving its mappings" }

    package func recognises(_ directory: String) -> Bool {
        WireMockFolderLoader.recognises(directory)
    }

    package func load(_ directory: URL, displayName: String) -> StubLoadResult {
        WireMockFolderLoader(directory: directory, displayName: displayName, globalTemplating: globalTemplating)
            .load()
    }
}
