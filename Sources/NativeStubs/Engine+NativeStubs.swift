import StubEngine

/// An engine and a loader that read native stubs, the ones every server makes: the engine is
/// given its stub format as it is given a dialect's, and these are its defaults where
/// `NativeStubs` is imported.
extension Engine.Options {
    /// Options for a folder of stub files and native stub JSON at run time; every other field
    /// has the command line's default.
    package init(
        cors: CORSPolicy? = nil,
        journalCapacity: Int = 1000,
        adminToken: String? = nil,
        directory: String? = nil,
        version: String = "dev",
        globalDelayMilliseconds: Int = 0
    ) {
        self.init(
            stubDecoder: NativeStubDecoder(),
            folderFormat: NativeStubFolder(),
            cors: cors,
            journalCapacity: journalCapacity,
            adminToken: adminToken,
            directory: directory,
            version: version,
            globalDelayMilliseconds: globalDelayMilliseconds
        )
    }
}

extension Engine {
    /// An engine over `stubs` with the command line's defaults.
    package convenience init(stubs: [Stub] = [], cors: CORSPolicy? = nil) {
        self.init(stubs: stubs, options: Options(cors: cors))
    }
}

extension StubLoader {
    /// Loads a folder of stub files.
    package init(directory: String, strict: Bool = false) {
        self.init(directory: directory, format: NativeStubFolder(), strict: strict)
    }
}
