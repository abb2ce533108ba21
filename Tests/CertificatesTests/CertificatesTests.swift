import Certificates
import Foundation
import Testing

/// The pieces the local CA is built from: SHA-256, DER both ways, PEM with places in its
/// errors, IP address text, keys and the certificates issued.
struct SHA256Tests {
    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func knownAnswers() {
        #expect(hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        )
        let twoBlocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(
            hex(SHA256.hash(Array(twoBlocks.utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        )
        #expect(
            hex(SHA256.hash([UInt8](repeating: 0x61, count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        )
        // Lengths around the padding boundary (55, 56, 63, 64 bytes) against Foundation-free vectors
        // computed by `sha256sum`.
        #expect(
            hex(SHA256.hash([UInt8](repeating: 0x61, count: 55)))
                == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"
        )
        #expect(
            hex(SHA256.hash([UInt8](repeating: 0x61, count: 56)))
                == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"
        )
        #expect(
            hex(SHA256.hash([UInt8](repeating: 0x61, count: 64)))
                == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"
        )
    }
}

struct DERTests {
    @Test func lengthsShortAndLong() throws {
        for count in [0, 1, 127, 128, 255, 256, 70_000] {
            let element = DER.octetString([UInt8](repeating: 7, count: count))
            var reader = DERReader(element)
            let read = try reader.next(0x04, "an octet string")
            #expect(read.content.count == count)
            #expect(reader.isAtEnd)
        }
    }

    @Test func integersAreMinimalAndPositive() {
        #expect(DER.integer(0) == [0x02, 0x01, 0x00])
        #expect(DER.integer(127) == [0x02, 0x01, 0x7F])
        #expect(DER.integer(128) == [0x02, 0x02, 0x00, 0x80])
        #expect(DER.integer(unsigned: [0, 0, 0xFF]) == [0x02, 0x02, 0x00, 0xFF])
    }

    @Test func objectIdentifiersRoundTrip() throws {
        for dotted in ["2.5.29.17", "1.2.840.10045.4.3.2", "1.3.6.1.5.5.7.3.1", "2.999.3"] {
            let encoded = DER.objectIdentifier(dotted)
            var reader = DERReader(encoded)
            #expect(try reader.objectIdentifier(reader.next()) == dotted)
        }
        #expect(DER.objectIdentifier("1.2.840.10045.2.1") == [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01])
    }

    @Test func namedBitsDropTrailingZeros() {
        #expect(DER.namedBits([0]) == [0x03, 0x02, 0x07, 0x80])
        #expect(DER.namedBits([5, 6]) == [0x03, 0x02, 0x01, 0x06])
    }

    @Test func timesSwitchToGeneralizedIn2050() {
        #expect(DER.time(epochSeconds: 0) == [0x17, 0x0D] + Array("700101000000Z".utf8))
        #expect(DER.time(epochSeconds: 2_524_608_000) == [0x18, 0x0F] + Array("20500101000000Z".utf8))
    }

    @Test func badInputIsAnErrorWithItsOffset() {
        let cases: [([UInt8], String)] = [
            ([], "a value is missing"),
            ([0x30], "the length is missing"),
            ([0x30, 0x80, 0x00, 0x00], "an indefinite length is not DER"),
            ([0x30, 0x85, 1, 1, 1, 1, 1], "a length of 5 bytes is too long"),
            ([0x30, 0x82, 0x01], "the length is cut short"),
            ([0x30, 0x05, 0x01], "the value claims 5 bytes; 1 are left"),
            ([0x1F, 0x01, 0x00], "multi-byte tags are not used here"),
        ]
        for (bytes, reason) in cases {
            var reader = DERReader(bytes)
            #expect(throws: DERError(offset: 0, reason: reason)) { try reader.next() }
        }
    }

    @Test func nestingIsBounded() {
        var value: [UInt8] = []
        for _ in 0..<40 { value = DER.sequence([value]) }
        func walk(_ reader: DERReader) throws {
            var reader = reader
            while !reader.isAtEnd {
                let element = try reader.next()
                if element.isConstructed { try walk(reader.children(of: element)) }
            }
        }
        #expect(throws: DERError.self) { try walk(DERReader(value)) }
    }
}

struct PEMTests {
    @Test func roundTripAndTextAroundBlocks() throws {
        let der = Array(0..<200).map { UInt8($0) }
        let text =
            "Bag Attributes: ignored\n" + PEM.encode(label: "CERTIFICATE", der: der) + "trailing words\n"
            + PEM.encode(label: "PRIVATE KEY", der: [1, 2, 3])
        let blocks = try PEM.decode(Array(text.utf8))
        #expect(blocks.map(\.label) == ["CERTIFICATE", "PRIVATE KEY"])
        #expect(blocks[0].der == der)
        #expect(blocks[0].line == 2)
        #expect(blocks[1].der == [1, 2, 3])
        #expect(PEM.encode(label: "X", der: der).split(separator: "\n").dropFirst().first?.count == 64)
    }

    @Test func crlfAndIndentationAreAccepted() throws {
        let text = PEM.encode(label: "CERTIFICATE", der: [9, 8, 7, 6]).replacingOccurrences(of: "\n", with: "\r\n  ")
        #expect(try PEM.decode(Array(text.utf8)).first?.der == [9, 8, 7, 6])
    }

    @Test func errorsNameTheLineAndColumn() {
        let cases: [(String, PEMError)] = [
            (
                "-----BEGIN CERTIFICATE-----\nAAA*\n-----END CERTIFICATE-----\n",
                PEMError(line: 2, column: 4, reason: "\"*\" is not a base64 character")
            ),
            (
                "-----BEGIN CERTIFICATE-----\nAAAA\n-----END PRIVATE KEY-----\n",
                PEMError(line: 3, column: 1, reason: "END PRIVATE KEY closes the CERTIFICATE block begun on line 1")
            ),
            (
                "-----BEGIN CERTIFICATE-----\nAAAA\n",
                PEMError(line: 2, column: 1, reason: "the CERTIFICATE block begun on line 1 has no END line")
            ),
            ("-----END CERTIFICATE-----\n", PEMError(line: 1, column: 1, reason: "END CERTIFICATE without a BEGIN")),
            (
                "-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----\n",
                PEMError(
                    line: 3,
                    column: 1,
                    reason: "the block's base64 ends in the middle of a group of four characters"
                )
            ),
            (
                "-----BEGIN CERTIFICATE-----\nAA=A\n-----END CERTIFICATE-----\n",
                PEMError(line: 2, column: 4, reason: "has base64 after the \"=\" padding")
            ),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n-----END RSA PRIVATE KEY-----\n",
                PEMError(
                    line: 2,
                    column: 1,
                    reason: "the RSA PRIVATE KEY block has a \"Proc-Type\" header: "
                        + "an encrypted key, which stubserver cannot use (decrypt it first)"
                )
            ),
            (
                "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n",
                PEMError(line: 2, column: 1, reason: "the CERTIFICATE block is empty")
            ),
        ]
        for (text, error) in cases {
            #expect(throws: error) { try PEM.decode(Array(text.utf8)) }
        }
    }
}

struct IPAddressTextTests {
    @Test func parseAndFormat() {
        #expect(IPAddressText.parse("127.0.0.1") == [127, 0, 0, 1])
        #expect(IPAddressText.parse("::1") == [UInt8](repeating: 0, count: 15) + [1])
        #expect(IPAddressText.parse("fe80::1:2") == [0xFE, 0x80] + [UInt8](repeating: 0, count: 10) + [0, 1, 0, 2])
        #expect(IPAddressText.parse("::ffff:10.0.2.2") == [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 10, 0, 2, 2])
        for notAnAddress in [
            "localhost", "1.2.3", "1.2.3.256", "01.2.3.4", ":::", "1::2::3", "1:2:3:4:5:6:7:8:9", "", "a.b.c.d",
        ] {
            #expect(IPAddressText.parse(notAnAddress) == nil, "\(notAnAddress)")
        }
        #expect(IPAddressText.format([10, 0, 2, 2]) == "10.0.2.2")
        #expect(IPAddressText.format(IPAddressText.parse("::1")!) == "::1")
        #expect(IPAddressText.format(IPAddressText.parse("2001:db8:0:0:1:0:0:1")!) == "2001:db8::1:0:0:1")
        #expect(IPAddressText.format(IPAddressText.parse("1:2:3:4:5:6:7:8")!) == "1:2:3:4:5:6:7:8")
        #expect(IPAddressText.format([1, 2, 3]) == nil)
    }
}

struct LocalAuthorityTests {
    func temporaryHome() -> CertificateHome {
        CertificateHome(
            path: FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString)").path
        )
    }

    @Test func homeComesFromTheEnvironment() {
        #expect(CertificateHome.fromEnvironment(["STUBSERVER_HOME": "/x/y"])?.path == "/x/y")
        #expect(CertificateHome.fromEnvironment(["HOME": "/home/me/"])?.path == "/home/me/.stubserver")
        #expect(CertificateHome.fromEnvironment([:]) == nil)
    }

    @Test func aCreatedAuthorityLoadsAgainAndIssuesLeavesByTheRules() throws {
        let home = temporaryHome()
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        let created = try LocalAuthority.create(in: home)
        #expect(created.certificate.isCertificateAuthority)
        #expect(throws: CertificateError.self) { try LocalAuthority.create(in: home) }
        let loaded = try #require(try LocalAuthority.load(from: home))
        #expect(loaded.certificate == created.certificate)
        let mode = try FileManager.default.attributesOfItem(atPath: home.keyPath)[.posixPermissions] as? Int
        #expect(mode.map { $0 & 0o777 } == 0o600)
        let now = LocalAuthority.currentTime()
        let issued = try loaded.issue(names: ["localhost", "127.0.0.1", "::1", "10.0.2.2", "mac.local"], now: now)
        let leaf = issued.leaf
        #expect(leaf.dnsNames == ["localhost", "mac.local"])
        #expect(leaf.ipAddresses == ["127.0.0.1", "::1", "10.0.2.2"])
        #expect(leaf.extendedKeyUsages == ["1.3.6.1.5.5.7.3.1"])
        #expect(!leaf.isCertificateAuthority)
        #expect(leaf.issuer == created.certificate.subject)
        #expect(leaf.notAfter.epochSeconds - leaf.notBefore.epochSeconds <= 397 * 86_400)
        #expect(leaf.notBefore.epochSeconds <= now)
        #expect(leaf.serialNumber.count == 16)
    }

    @Test func missingHalfOfTheAuthorityIsAnError() throws {
        let home = temporaryHome()
        defer { try? FileManager.default.removeItem(atPath: home.path) }
        _ = try LocalAuthority.create(in: home)
        try FileManager.default.removeItem(atPath: home.keyPath)
        #expect(
            throws: CertificateError(
                "\(home.keyPath) is missing: the CA in \(home.path) is incomplete; "
                    + "run stubserver certs init --force to make a new one"
            )
        ) { try LocalAuthority.load(from: home) }
    }

    @Test func theKeyEncodingMatchesOpenSSLs() throws {
        // On Linux libcrypto writes the PKCS #8; the encoder Apple platforms use must write the
        // same bytes from the same point and scalar.
        let key = try SigningKey.generateP256()
        let (point, scalar) = try ECKeyEncoding.read(key.pkcs8)
        #expect(ECKeyEncoding.pkcs8(point: point, scalar: scalar) == key.pkcs8)
        #expect(ECKeyEncoding.publicKeyInfo(point: point) == (try key.publicKeyInfo()))
    }
}
