#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif
import Dispatch

/// Process-level platform services the command line needs: termination signals and whether an
/// output is a terminal. They live here, beside the sockets, so no other module imports libc.
public enum ProcessSignals {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    private static let lock = Locked(())

    /// Runs `handler` (on a Dispatch queue, not in signal context) on the first SIGINT or
    /// SIGTERM. A second signal while stopping ends the process at once with status 130, for
    /// the user who presses Ctrl-C twice because a client holds a response open.
    public static func onTermination(_ handler: @escaping @Sendable (_ signal: Int32) -> Void) {
        let fired = Locked(false)
        lock.withLock { _ in
            for number in [SIGINT, SIGTERM] {
                // The default action must be off for Dispatch to see the signal.
                _ = signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    let first = fired.withLock { wasFired -> Bool in
                        defer { wasFired = true }
                        return !wasFired
                    }
                    if first { handler(number) } else { _exit(130) }
                }
                source.resume()
                sources.append(source)
            }
        }
    }

    /// Whether a descriptor (1 for stdout) is a terminal: colour only then.
    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}
