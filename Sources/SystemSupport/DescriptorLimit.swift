#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The soft limit on open descriptors. macOS starts processes at 256, which stopped the server
/// near 250 connections although its default cap is 4096; Linux usually starts at 1024.
package enum DescriptorLimit {
    /// The current soft limit.
    package static var current: Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to `wanted`, clamped to the hard limit and, on macOS, to
    /// `kern.maxfilesperproc` (setrlimit refuses more there even under an unlimited hard
    /// limit). Never lowers it. Returns the limit in force afterwards.
    @discardableResult
    package static func raise(to wanted: Int = 65_536) -> Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        var target = rlim_t(max(0, wanted))
        if target > limit.rlim_max { target = limit.rlim_max }
        #if canImport(Darwin)
        var perProcess: Int32 = 0
        var size = MemoryLayout<Int32>.size
        if sysctlbyname("kern.maxfilesperproc", &perProcess, &size, nil, 0) == 0, perProcess > 0 {
            target = min(target, rlim_t(perProcess))
        }
        #endif
        if target > limit.rlim_cur {
            limit.rlim_cur = target
            _ = setrlimit(resource, &limit)
        }
        return current
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #elseif canImport(Musl)
    private static let resource = Int32(RLIMIT_NOFILE)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif
}
