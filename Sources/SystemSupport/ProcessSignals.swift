#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Process-level platform services the command line needs: termination signals and whether an
/// output is a terminal. They live in SystemSupport so no module above it imports libc.
package enum ProcessSignals {
    /// The signals that end the process: Ctrl-C, `kill`, and a closed terminal.
    package static let terminating: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Runs `handler` (on a thread of its own, not in signal context) on the first SIGINT,
    /// SIGTERM or SIGHUP. A second signal while stopping runs `urgently` on the signal thread
    /// (it must be quick: it is what the user waits for) and then ends the process at once with
    /// status 130, for the user who presses Ctrl-C twice because a client holds a response open.
    ///
    /// Call it before starting other threads: the signals are blocked in the calling thread, so
    /// threads started afterwards inherit the mask, and one thread takes them with `sigwait`.
    /// (A Dispatch signal source needed the signals ignored, and a signal the kernel routed to a
    /// thread that had not blocked them was dropped: the server then never stopped.)
    package static func onTermination(
        _ handler: @escaping @Sendable (_ signal: Int32) -> Void,
        urgently: @escaping @Sendable () -> Void = {}
    ) {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in terminating { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let waiting = signals
        SystemThread.start(name: "stubserver.signals") {
            var set = waiting
            var first = true
            while true {
                var received: Int32 = 0
                guard sigwait(&set, &received) == 0 else { continue }
                if first {
                    first = false
                    // Stopping runs on another thread so a second signal is still taken here.
                    let signal = received
                    SystemThread.start(name: "stubserver.stop") { handler(signal) }
                } else {
                    urgently()
                    _exit(130)
                }
            }
        }
    }

    /// Whether a descriptor (1 for stdout) is a terminal: colour only then.
    package static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}

/// Ending the process with a status (the executable imports no libc of its own).
package enum ProcessExit {
    package static func exit(_ status: Int32) -> Never {
        #if canImport(Glibc)
        Glibc.exit(status)
        #elseif canImport(Musl)
        Musl.exit(status)
        #else
        Darwin.exit(status)
        #endif
    }
}
