#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Facts about the running process that only the C library tells: what a library already
/// loaded says of itself, and the kernel's release.
package enum ProcessFacts {
    /// The string a loaded library's `const char *NAME(void)` function returns (libcurl's
    /// `curl_version`); nil when nothing loaded exports it. Loads nothing itself.
    package static func loadedLibraryString(_ function: String) -> String? {
        guard let symbol = loadedFunction(function) else { return nil }
        typealias Describe = @convention(c) () -> UnsafePointer<CChar>?
        return unsafeBitCast(symbol, to: Describe.self)().map { String(cString: $0) }
    }

    /// The address of a function some library already in the process exports; nil when none
    /// does. The caller casts it to the function's C type.
    package static func loadedFunction(_ name: String) -> UnsafeMutableRawPointer? {
        // The process itself: its symbols and those of every library loaded with it. The
        // handle is the process's own and stays valid, so it is not closed.
        guard let handle = dlopen(nil, RTLD_LAZY) else { return nil }
        return dlsym(handle, name)
    }

    /// The kernel's release (`uname -r`): Darwin's is the `Darwin/N` of CFNetwork's User-Agent.
    package static func kernelRelease() -> String? {
        var names = utsname()
        guard uname(&names) == 0 else { return nil }
        return withUnsafeBytes(of: &names.release) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
