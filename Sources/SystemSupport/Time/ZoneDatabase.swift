#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Time zones by name, from the system's zone database: the TZif files under `TZDIR` (or
/// `/usr/share/zoneinfo`), read once per name and kept. Never ICU: Foundation's `TimeZone`
/// needs it, and the shipped binary does not load it.
///
/// Besides file names (`Europe/London`, `America/New_York`, `EST5EDT`) it knows `UTC`, `GMT`,
/// `Z` and `UT` without any file, and fixed offsets as Java writes them (`GMT+2`, `UTC-03:30`,
/// `+05:30`), so UTC works on machines without a zone database (small container images).
package enum ZoneDatabase {
    /// Keyed by directory and name.
    private static let cache = Locked<[String: ZoneRules]>([:])

    /// The zone called `identifier`, or why there is none. `directory` replaces the database's
    /// (tests give their own files).
    package static func rules(for identifier: String, directory: String? = nil) throws(ZoneError) -> ZoneRules {
        let directory = directory ?? Self.directory
        let key = directory + "\u{0}" + identifier
        if let known = cache.withLock({ $0[key] }) { return known }
        let rules = try load(identifier, directory: directory)
        // Names come from stub files; the bound keeps a template that names zones per request
        // from growing the cache without end.
        cache.withLock { if $0.count < 1024 { $0[key] = rules } }
        return rules
    }

    /// The machine's zone, as the C library finds it: `TZ` (a name, `:name`, or a POSIX rule
    /// such as `EST5EDT,M3.2.0,M11.1.0`), else `/etc/localtime`, else UTC. Read once.
    package static let local: ZoneRules = {
        guard let value = getenv("TZ") else {
            guard let bytes = readFile("/etc/localtime", limit: 1 << 20),
                let rules = try? TZifReader.read(bytes, identifier: "localtime")
            else { return .utc }
            return rules
        }
        var name = String(cString: value)
        if name.hasPrefix(":") { name.removeFirst() }
        if name.isEmpty { return .utc }
        if let rules = try? Self.rules(for: name) { return rules }
        if let rule = POSIXZoneRuleReader.read(name) {
            return ZoneRules(
                identifier: name,
                transitions: [],
                transitionOffsets: [],
                initialOffset: rule.standard,
                rule: rule
            )
        }
        return .utc
    }()

    /// Where the zone files are: `TZDIR` when set, as the C library reads it.
    package static var directory: String {
        if let value = getenv("TZDIR"), value[0] != 0 { return String(cString: value) }
        return "/usr/share/zoneinfo"
    }

    private static func load(_ identifier: String, directory: String) throws(ZoneError) -> ZoneRules {
        if ["UTC", "GMT", "Z", "UT", "Zulu", "Etc/UTC", "Etc/GMT"].contains(identifier) {
            return .fixed(identifier: identifier, seconds: 0, abbreviation: identifier == "GMT" ? "GMT" : "UTC")
        }
        if let fixed = fixedOffset(identifier) { return fixed }
        guard isFileName(identifier) else {
            throw ZoneError("\"\(identifier)\" is not a time zone name (such as UTC, Europe/Paris or GMT+02:00)")
        }
        let path = directory + "/" + identifier
        guard let bytes = readFile(path, limit: 1 << 20) else {
            throw ZoneError("no time zone \"\(identifier)\" in the zone database (\(path))")
        }
        do {
            return try TZifReader.read(bytes, identifier: identifier)
        } catch {
            throw ZoneError("\(path): \(error.description)")
        }
    }

    /// Letters, digits and `_+-` in `/`-separated parts, none of them `.` or `..`: a name, never
    /// a path out of the database.
    private static func isFileName(_ identifier: String) -> Bool {
        guard !identifier.isEmpty, identifier.utf8.count <= 255 else { return false }
        for part in identifier.split(separator: "/", omittingEmptySubsequences: false) {
            guard let first = part.first, first != "." else { return false }
            let allowed = part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_+-.".contains($0)) }
            guard allowed else { return false }
        }
        return true
    }

    /// `GMT+2`, `UTC-03:30`, `UT+0530`, `+05:30`, `-08`: one offset all year.
    private static func fixedOffset(_ identifier: String) -> ZoneRules? {
        var rest = Substring(identifier)
        for prefix in ["GMT", "UTC", "UT"] where rest.hasPrefix(prefix) {
            rest = rest.dropFirst(prefix.count)
            break
        }
        guard let sign = rest.first, sign == "+" || sign == "-" else { return nil }
        let digits = rest.dropFirst().filter { $0 != ":" }
        guard (1...4).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            rest.dropFirst().filter({ $0 == ":" }).count <= 1
        else { return nil }
        let hours = digits.count <= 2 ? Int(digits)! : Int(digits.dropLast(2))!
        let minutes = digits.count <= 2 ? 0 : Int(digits.suffix(2))!
        guard hours <= 18, minutes < 60 else { return nil }
        let seconds = (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let name = seconds == 0 ? "GMT" : "GMT\(sign)\(two(hours)):\(two(minutes))"
        return .fixed(identifier: identifier, seconds: seconds, abbreviation: name)
    }

    /// A whole regular file of at most `limit` bytes, or nil.
    private static func readFile(_ path: String, limit: Int) -> [UInt8]? {
        guard FileStatus(path: path)?.kind == .regular else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while bytes.count <= limit {
            let n = chunk.withUnsafeMutableBytes { buffer in read(fd, buffer.baseAddress!, buffer.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { return bytes }
            bytes += chunk[0..<n]
        }
        return nil
    }
}
