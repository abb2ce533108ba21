import Certificates
import SystemSupport

/// `stubserver certs init`: the local certificate authority, made once in the stubserver home.
struct CertsInitCommand: Command {
    static let name = "certs init"
    static let synopsis = ["certs init [--force]"]
    static let summary = "make the local certificate authority that --https certificates come from"
    static let options: [Option] = [
        .flag("--force", "replace an existing CA (every device that trusts the old one must trust the new one)")
    ]
    static let details = """
        The CA lives in $STUBSERVER_HOME (default ~/.stubserver): ca.pem, the certificate your
        devices trust, and ca-key.pem (mode 0600), which never leaves this machine and is never
        printed. Running it again keeps the existing CA. Details: docs/https.md.
        """

    let force: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        force = arguments.has("--force")
    }

    func run(_ console: Console) -> Int32 {
        guard let home = CertificateHome.fromEnvironment() else {
            console.err("stubserver: set STUBSERVER_HOME (or HOME): the CA needs a home")
            return 1
        }
        do {
            if !force, let existing = try LocalAuthority.load(from: home) {
                console.out("stubserver: keeping the CA in \(home.path) (--force replaces it)")
                CertsShowCommand.describe(existing, console: console)
                console.out(CertsTrust.steps(home))
                return 0
            }
            let replaced = FileStatus(path: home.certificatePath) != nil
            let authority = try LocalAuthority.create(in: home, replacing: true)
            console.out("stubserver: made a local certificate authority in \(home.path)")
            if replaced {
                console.out(
                    "stubserver: the old CA is gone: devices, simulators and apps that trusted it "
                        + "must trust the new one (the steps below)"
                )
            }
            CertsShowCommand.describe(authority, console: console)
            console.out(CertsTrust.steps(home))
            return 0
        } catch {
            console.err("stubserver: \(error)")
            return 1
        }
    }
}

/// `stubserver certs show`: where the CA is, its fingerprint and expiry, and the names a server
/// certificate would carry now.
struct CertsShowCommand: Command {
    static let name = "certs show"
    static let synopsis = ["certs show [--host ADDR] [--cert-host NAME]..."]
    static let summary = "print the local CA's path, fingerprint, expiry and the names served"
    static let options: [Option] = [
        .value("--host", "ADDR", "the address serve would listen on (0.0.0.0 adds this machine's LAN addresses)"),
        .value("--cert-host", "NAME", "another name the certificate would carry", repeatable: true),
    ]

    let host: String
    let extra: [String]

    init(_ arguments: ParsedArguments) throws(UsageError) {
        host = try arguments.nonEmpty("--host", "an address") ?? "127.0.0.1"
        extra = arguments.all("--cert-host").map { $0.lowercased() }
    }

    func run(_ console: Console) -> Int32 {
        guard let home = CertificateHome.fromEnvironment() else {
            console.err("stubserver: set STUBSERVER_HOME (or HOME): the CA needs a home")
            return 1
        }
        do {
            guard let authority = try LocalAuthority.load(from: home) else {
                console.err("stubserver: no CA in \(home.path) yet: stubserver certs init makes one (--https does too)")
                return 1
            }
            Self.describe(authority, console: console)
            console.out(
                "server certificate names: \(ServerNames.forListening(on: host, extra: extra).joined(separator: ", "))"
            )
            return 0
        } catch {
            console.err("stubserver: \(error)")
            return 1
        }
    }

    static func describe(_ authority: LocalAuthority, console: Console) {
        let certificate = authority.certificate
        if let home = authority.home {
            console.out("CA certificate: \(home.certificatePath)")
            console.out("CA key: \(home.keyPath) (mode 0600; never share it)")
        }
        console.out("subject: \(certificate.commonName ?? "(none)")")
        console.out("SHA-256 fingerprint: \(certificate.fingerprint)")
        console.out("expires: \(certificate.notAfter)")
    }
}

/// `stubserver certs trust ios-simulator | android`.
struct CertsTrustCommand: Command {
    static let name = "certs trust"
    static let synopsis = ["certs trust ios-simulator", "certs trust android"]
    static let summary = "install the CA on the booted iOS simulator, or print how an Android app trusts it"
    static let positionalCount = 1
    static let options: [Option] = []
    static let details = """
        ios-simulator runs `xcrun simctl keychain booted add-root-cert CA` on macOS (elsewhere it
        prints that command). android prints the network_security_config.xml that makes a debug
        build trust the CA, and where the CA file goes. Details: docs/https.md.
        """

    enum Target: String {
        case iosSimulator = "ios-simulator"
        case android
    }

    let target: Target

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let given = arguments.positionals.first else {
            throw UsageError("certs trust needs where: ios-simulator or android")
        }
        guard let target = Target(rawValue: given) else {
            throw UsageError("certs trust knows ios-simulator and android, not \"\(given)\"")
        }
        self.target = target
    }

    func run(_ console: Console) -> Int32 {
        guard let home = CertificateHome.fromEnvironment() else {
            console.err("stubserver: set STUBSERVER_HOME (or HOME): the CA needs a home")
            return 1
        }
        do {
            guard try LocalAuthority.load(from: home) != nil else {
                console.err("stubserver: no CA in \(home.path) yet: stubserver certs init makes one")
                return 1
            }
        } catch {
            console.err("stubserver: \(error)")
            return 1
        }
        switch target {
        case .iosSimulator:
            return CertsTrust.iosSimulator(home, console: console)
        case .android:
            console.out(CertsTrust.android(home))
            return 0
        }
    }
}

/// The trust steps, one text per platform (printed by `certs init` and `certs trust`, and
/// repeated in docs/https.md).
enum CertsTrust {
    static func steps(_ home: CertificateHome) -> String {
        let ca = home.certificatePath
        return """

            Trust it once where your app runs:
              iOS simulator:     stubserver certs trust ios-simulator   (the booted simulator)
              iPhone or iPad:    send \(ca) to the device (AirDrop, mail), install the profile in
                                 Settings > General > VPN & Device Management, then turn it on in
                                 Settings > General > About > Certificate Trust Settings
              Android:           stubserver certs trust android   (a debug build's network_security_config)
              macOS browsers:    security add-trusted-cert -r trustRoot -k ~/Library/Keychains/login.keychain-db \(ca)
              curl, scripts:     curl --cacert \(ca) https://localhost:8080/
            """
    }

    static func iosSimulator(_ home: CertificateHome, console: Console) -> Int32 {
        let arguments = ["xcrun", "simctl", "keychain", "booted", "add-root-cert", home.certificatePath]
        #if os(macOS)
        console.out("stubserver: \(arguments.joined(separator: " "))")
        guard let status = ChildProcess.run(arguments) else {
            console.err("stubserver: cannot run xcrun (are Xcode's command line tools installed?)")
            return 1
        }
        guard status == 0 else {
            console.err(
                "stubserver: xcrun simctl failed (status \(status)): is a simulator booted? "
                    + "(xcrun simctl list devices booted)"
            )
            return 1
        }
        console.out("stubserver: the booted simulator trusts the CA now; apps on it reach https://localhost:PORT")
        return 0
        #else
        console.out("On the Mac that runs the simulator (with a simulator booted):")
        console.out("  " + arguments.joined(separator: " "))
        console.out("(copy \(home.certificatePath) there first if this is another machine)")
        return 0
        #endif
    }

    static func android(_ home: CertificateHome) -> String {
        """
        Make your app's debug build trust the CA (release builds are not affected):

        1. Copy the CA into the debug resources:
             cp \(home.certificatePath) app/src/debug/res/raw/stubserver_ca.pem

        2. app/src/debug/res/xml/network_security_config.xml:
             <?xml version="1.0" encoding="utf-8"?>
             <network-security-config>
                 <debug-overrides>
                     <trust-anchors>
                         <certificates src="@raw/stubserver_ca" />
                         <certificates src="system" />
                     </trust-anchors>
                 </debug-overrides>
             </network-security-config>

        3. In the <application> element of app/src/debug/AndroidManifest.xml (merged into the debug build):
             android:networkSecurityConfig="@xml/network_security_config"

        The emulator reaches this machine at 10.0.2.2, which the server's certificate carries:
        use https://10.0.2.2:PORT as the base URL. A phone on the same Wi-Fi uses this machine's
        LAN address (serve with --host 0.0.0.0 --https; stubserver certs show --host 0.0.0.0 lists them).
        """
    }
}
