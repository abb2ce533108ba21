#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Threads without Foundation: the server's modules use FoundationEssentials on Linux (Foundation
/// proper, with ICU, costs 6 MiB of resident memory), and `Thread` lives in Foundation. A thread
/// here is a detached pthread running a closure.
package enum SystemThread {
    private final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// Starts `body` on a new detached thread called `name` (on Apple platforms, where debuggers
    /// show it). `stackSize` 0 means the system's default.
    package static func start(name: String, stackSize: Int = 0, _ body: @escaping @Sendable () -> Void) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if stackSize > 0 { pthread_attr_setstacksize(&attributes, stackSize) }
        let context = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let result = pthread_create(
            &thread,
            &attributes,
            { context in
                #if canImport(Darwin)
                let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
                _ = body.name.withCString { pthread_setname_np($0) }
                #else
                // Glibc's Swift module does not export pthread_setname_np (a GNU extension): Linux
                // threads go unnamed.
                let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
                #endif
                body.run()
                return nil
            },
            context
        )
        precondition(result == 0, "cannot start thread \(name): error \(result)")
    }

    /// Sleeps the calling thread (the folder watcher's and the log flusher's pace; never on a
    /// loop that serves requests).
    package static func sleep(milliseconds: Int) {
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
