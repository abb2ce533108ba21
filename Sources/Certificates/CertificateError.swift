/// Why a certificate or key could not be made, read or used: what, and where (the file, and a
/// line and column or byte offset in it when the content is at fault).
package struct CertificateError: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
