import Foundation
import Testing

/// docs/architecture.md is the rule book: each module imports only what its row of the table
/// allows, libc only where the doc says, and no line is wider than 120 columns.
@Suite struct ArchitectureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let libc: Set<String> = ["Glibc", "Musl", "Darwin"]
    /// The general libraries: text formats and engines that know nothing of stubs or HTTP, so
    /// they can be read, tested and fuzzed alone (docs/architecture.md, "Rules the table implies").
    static let generalLibraries: Set<String> = [
        "RegularExpressions", "JSON", "JSONPath", "XML", "YAML", "JSONSchema", "Handlebars",
    ]

    /// Module name to the imports its row allows (the backticked names of the last column).
    static func allowedImports() throws -> [String: Set<String>] {
        let doc = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        var table: [String: Set<String>] = [:]
        for line in doc.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4 else { continue }
            let module = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            table[module] = Set(backticked(cells[cells.count - 2]))
        }
        return table
    }

    static func backticked(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
            String($0.element)
        }
    }

    static func sources(of module: String) -> [URL] {
        let folder = root.appendingPathComponent("Sources/\(module)")
        let files =
            FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return files.filter { $0.pathExtension == "swift" }
    }

    static func imports(in file: URL) throws -> [String] {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
            guard words.first == "import", words.count >= 2 else { return nil }
            return String(words[1])
        }
    }

    @Test func everyModuleImportsOnlyWhatTheDocAllows() throws {
        let allowed = try Self.allowedImports()
        let modules = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("Sources").path
        )
        #expect(Set(modules) == Set(allowed.keys), "docs/architecture.md has a row for every module and no other")
        for module in modules {
            let rules = allowed[module] ?? []
            for file in Self.sources(of: module) {
                let relative = file.path.replacingOccurrences(of: Self.root.path + "/", with: "")
                for name in try Self.imports(in: file) {
                    let inPlatformFolder = relative.hasPrefix("Sources/HTTPSockets/Platform/")
                    let platformOnly = Self.libc.contains(name) || name == "CSystemLinux" || name == "CTLS"
                    // A row that allows FoundationEssentials allows Foundation as its fallback only.
                    let fallback = name == "Foundation" && rules.contains("FoundationEssentials")
                    let ok =
                        (rules.contains(name) || fallback)
                        && (!platformOnly || module != "HTTPSockets" || inPlatformFolder)
                    #expect(ok, "\(relative) imports \(name), which docs/architecture.md does not allow for \(module)")
                }
            }
        }
    }

    /// A general library's row allows only other general libraries, `SystemSupport` and the
    /// toolchain's modules: never the engine, the importers or the HTTP layer (the test above
    /// holds the sources to the row).
    @Test func generalLibrariesKnowNothingOfStubsOrHTTP() throws {
        let allowed = try Self.allowedImports()
        let toolchain: Set<String> = ["SystemSupport", "FoundationEssentials", "Foundation", "Dispatch"]
        for library in Self.generalLibraries.sorted() {
            let row = try #require(allowed[library], "docs/architecture.md has no row for \(library)")
            let others = row.subtracting(Self.generalLibraries).subtracting(toolchain)
            #expect(others.isEmpty, "\(library) may import \(others.sorted()), which are not general libraries")
        }
    }

    /// The engine knows no dialect: WireMock plugs into it through the registries the engine
    /// owns (folder formats, admin routes), so StubEngine may not import the WireMock module,
    /// whatever its row says, nor name its types; only the command line brings the two together.
    @Test func theEngineKnowsNothingOfTheWireMockDialect() throws {
        let allowed = try Self.allowedImports()
        #expect(allowed["StubEngine"]?.contains("WireMock") == false, "StubEngine's row allows WireMock")
        for (module, rules) in allowed where rules.contains("WireMock") {
            #expect(module == "StubServerCLI", "\(module) may import WireMock; only the command line plugs it in")
        }
        let typeName = try NSRegularExpression(pattern: #"(?<![A-Za-z0-9_])WireMock[A-Za-z0-9_]*"#)
        for file in Self.sources(of: "StubEngine") {
            let relative = file.path.replacingOccurrences(of: Self.root.path + "/", with: "")
            #expect(!(try Self.imports(in: file)).contains("WireMock"), "\(relative) imports WireMock")
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
            for (index, line) in lines.enumerated() {
                // Code only: comments may say what a dialect does with a type.
                let code = String(line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false)[0])
                let range = NSRange(code.startIndex..., in: code)
                #expect(
                    typeName.firstMatch(in: code, range: range) == nil,
                    "\(relative):\(index + 1) names a WireMock type: \(line)"
                )
            }
        }
    }

    /// The engine knows nothing of recording: the recorder plugs into it from outside (an exchange
    /// observer, admin routes), so StubEngine's row may not allow the module that holds it.
    @Test func theEngineKnowsNothingOfTheRecorder() throws {
        let allowed = try Self.allowedImports()
        #expect(allowed["StubEngine"]?.contains("StubAuthoring") == false, "StubEngine's row allows StubAuthoring")
        #expect(allowed["StubAuthoring"]?.contains("StubEngine") == true, "StubAuthoring plugs into the engine")
    }

    /// The engine knows no stub format either: the native one plugs in as a dialect does (a
    /// `StubDecoder` and a `StubFolderFormat` the engine is given), so StubEngine's row may not
    /// allow the module that holds it.
    @Test func theEngineKnowsNoStubFormat() throws {
        let allowed = try Self.allowedImports()
        #expect(allowed["StubEngine"]?.contains("NativeStubs") == false, "StubEngine's row allows NativeStubs")
        #expect(allowed["NativeStubs"]?.contains("StubEngine") == true, "NativeStubs plugs into the engine")
    }

    /// The server's modules reach Foundation only through `#if canImport(FoundationEssentials)`,
    /// so on Linux the executable does not load libFoundation and ICU (docs/architecture.md).
    @Test func serverModulesImportFoundationOnlyAsTheEssentialsFallback() throws {
        let serverModules = [
            "SystemSupport", "RegularExpressions", "JSON", "JSONPath", "XML", "YAML", "JSONSchema", "Handlebars",
            "HTTP1", "HTTPSockets", "StubEngine", "NativeStubs", "StubAdmin", "StubAuthoring", "Inspector", "WireMock",
            "StubProxy", "StubImport", "StubServerCLI", "stubserver",
        ]
        for module in serverModules {
            for file in Self.sources(of: module) {
                let relative = file.path.replacingOccurrences(of: Self.root.path + "/", with: "")
                let lines = try String(contentsOf: file, encoding: .utf8).split(
                    separator: "\n",
                    omittingEmptySubsequences: false
                )
                .map { $0.trimmingCharacters(in: .whitespaces) }
                for (index, line) in lines.enumerated() where line.hasSuffix("import Foundation") {
                    let guarded =
                        index >= 3 && lines[index - 1] == "#else"
                        && lines[index - 2].hasSuffix("import FoundationEssentials")
                        && lines[index - 3] == "#if canImport(FoundationEssentials)"
                    #expect(
                        guarded,
                        "\(relative):\(index + 1) imports Foundation outside the FoundationEssentials fallback"
                    )
                }
            }
        }
    }

    @Test func libcOnlyInThePlatformPlaces() throws {
        for module in try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("Sources").path
        ) {
            for file in Self.sources(of: module) {
                let relative = file.path.replacingOccurrences(of: Self.root.path + "/", with: "")
                let libc = try Self.imports(in: file).filter(Self.libc.contains)
                guard !libc.isEmpty else { continue }
                #expect(
                    relative.hasPrefix("Sources/SystemSupport/") || relative.hasPrefix("Sources/HTTPSockets/Platform/"),
                    "\(relative) imports \(libc)"
                )
                // A selector that exists on one platform only is wholly inside its condition.
                let firstLine = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").first ?? ""
                let wholeFileIsPlatformOnly = firstLine == "#if os(Linux)" || firstLine == "#if canImport(Darwin)"
                #expect(
                    Set(libc) == Self.libc || wholeFileIsPlatformOnly,
                    "\(relative) imports every libc behind #if canImport, not only \(libc)"
                )
            }
        }
    }

    /// Foundation's time zones, calendars, locales and formatters need ICU: the shipped binary
    /// (FoundationEssentials only) compiles them and then gets nil or crashes (issue 29: a
    /// `{{now}}` template crashed every server at load), while the tests, linking all of
    /// Foundation, pass. Dates come from SystemSupport's `CivilCalendar` and `ZoneDatabase`.
    @Test func noSourceUsesFoundationsInternationalisation() throws {
        // Whole names only: `CivilCalendar.dayNumber` is the package's own.
        let word = #"(?<![A-Za-z0-9_])"#
        let forbidden = try NSRegularExpression(
            pattern: word + #"(TimeZone|Calendar|Locale)(\(|\.current|\.autoupdatingCurrent)"#
                + "|" + word + #"(ISO8601DateFormatter|DateFormatter|NumberFormatter|String\(format:)|\.formatted\("#
        )
        for module in try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("Sources").path
        ) {
            for file in Self.sources(of: module) {
                let relative = file.path.replacingOccurrences(of: Self.root.path + "/", with: "")
                let lines = try String(contentsOf: file, encoding: .utf8).split(
                    separator: "\n",
                    omittingEmptySubsequences: false
                )
                for (index, line) in lines.enumerated() {
                    // Comments may name them (to say why they are not used).
                    let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                    let text = String(code)
                    for match in forbidden.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                        let name = (text as NSString).substring(with: match.range)
                        #expect(
                            Bool(false),
                            "\(relative):\(index + 1) uses \(name), which needs ICU (absent from the shipped binary)"
                        )
                    }
                }
            }
        }
    }

    /// The formatter (`.swift-format`, checked by `swift format lint --strict` in .ci/run) decides
    /// line shape; it cannot break a string literal or a comment, so this holds the 120 columns
    /// there too. File length follows concern and has no cap: a file too long to read is split by
    /// responsibility, never compressed.
    @Test func noSwiftLineIsWiderThan120Columns() throws {
        for folder in ["Sources", "Tests", "Fuzz"] {
            let top = Self.root.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: top, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }
                .filter { $0.pathExtension == "swift" }
            for file in files ?? [] {
                let lines = try String(contentsOf: file, encoding: .utf8).split(
                    separator: "\n",
                    omittingEmptySubsequences: false
                )
                for (index, line) in lines.enumerated() where line.count > 120 {
                    Issue.record("\(folder)/\(file.lastPathComponent):\(index + 1) is \(line.count) columns wide")
                }
            }
        }
    }
}
