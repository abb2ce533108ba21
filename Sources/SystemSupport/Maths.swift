#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The C library's elementary functions for modules that may not import it (the engine draws
/// WireMock's lognormal delays with them); FoundationEssentials does not re-export them.
package enum Maths {
    package static func log(_ x: Double) -> Double { naturalLog(x) }
    package static func exp(_ x: Double) -> Double { exponential(x) }
    package static func cos(_ x: Double) -> Double { cosine(x) }
}

// At file scope the names are the C library's (inside `Maths` they would be its own).
private func naturalLog(_ x: Double) -> Double { log(x) }
private func exponential(_ x: Double) -> Double { exp(x) }
private func cosine(_ x: Double) -> Double { cos(x) }
