import JSON
import NativeStubs
import StubEngine

/// Files to write into a stub folder: stub files (encoded by `StubEncoder`) and body files, by
/// path relative to the folder. Building a plan touches no disk, so the same plan is written,
/// tested and fuzzed; `StubFolderWriter` writes it.
package struct StubFolderPlan: Sendable {
    package struct File: Sendable, Equatable {
        /// `get-pets.json`, `__files/get-logo-1.png`: `/`-separated, inside the folder.
        package let relativePath: String
        package let bytes: [UInt8]

        package init(relativePath: String, bytes: [UInt8]) {
            self.relativePath = relativePath
            self.bytes = bytes
        }
    }

    package var files: [File] = []
    package var stubCount = 0

    package init() {}

    package var stubFiles: [File] { files.filter { !$0.relativePath.hasPrefix("__files/") } }
    package var bodyFiles: [File] { files.filter { $0.relativePath.hasPrefix("__files/") } }

    /// Adds a stub file holding `stubs` (one stub object, or an array of them).
    package mutating func addStubFile(_ relativePath: String, _ stubs: [JSONNode]) {
        files.append(File(relativePath: relativePath, bytes: StubEncoder.encode(stubNodes: stubs)))
        stubCount += stubs.count
    }
}

/// File names the recorder and importers choose: lower-case ASCII letters, digits and dashes,
/// so they are the same on every file system (macOS and Windows fold case) and in every shell;
/// unique within a folder in the order they are asked for, so one input always gives the same
/// names. Names already in the folder can be reserved first, so nothing is overwritten.
package struct FileNameAllocator: Sendable {
    private var taken: Set<String>
    static let maximumLength = 80

    package init(reserving existing: Set<String> = []) {
        taken = Set(existing.map { $0.lowercased() })
    }

    /// `GET /pets/{petId}` → `get-pets-petid`; empty text → `fallback`.
    package static func slug(_ text: String, fallback: String) -> String {
        var out = ""
        for scalar in text.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                out.unicodeScalars.append(scalar)
            } else if !out.isEmpty, !out.hasSuffix("-") {
                out += "-"
            }
        }
        while out.hasSuffix("-") { out.removeLast() }
        if out.count > maximumLength {
            out = String(out.prefix(maximumLength))
            while out.hasSuffix("-") { out.removeLast() }
        }
        return out.isEmpty ? fallback : out
    }

    /// `base.ext`, or `base-2.ext`, `base-3.ext`, ... when taken (compared without case).
    package mutating func allocate(_ base: String, extension ext: String) -> String {
        var candidate = "\(base).\(ext)"
        var n = 2
        while !taken.insert(candidate.lowercased()).inserted {
            candidate = "\(base)-\(n).\(ext)"
            n += 1
        }
        return candidate
    }
}
