import CPlatform
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGUSR1 as a request to check the app's channel now (`kill -USR1 <pid>` of the app or of its supervisor, which
/// passes it on). The signal's default action ends a process: the app takes it over only while it follows a channel.
///
/// Why a pipe: a Dispatch signal source on Linux reads a signalfd, which sees only signals blocked in every thread,
/// and ignoring the signal (what Dispatch asks on other systems) discards it before anyone reads it. A C handler that
/// writes a byte to a pipe works whatever thread the kernel picks, and a thread of its own turns bytes into requests.
public enum UpdateSignal {
    /// The signal: SIGUSR1.
    public static let number = SIGUSR1

    /// Where each request goes, while someone listens.
    private static let listener = Mutex<AsyncStream<Void>.Continuation?>(nil)
    /// The pipe's reading end, once the handler is installed (once per process).
    private static let installed = Mutex<Int32?>(nil)

    /// Each SIGUSR1 this process receives from now on, as one element; `stop()` ends the stream (the handler stays:
    /// a later signal is dropped, not fatal).
    public static func received() throws(SystemCallError) -> (events: AsyncStream<Void>, stop: @Sendable () -> Void) {
        try install()
        let (events, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        listener.withLock { $0 = continuation }
        return (
            events,
            {
                listener.withLock { $0 = nil }
                continuation.finish()
            }
        )
    }

    private static func install() throws(SystemCallError) {
        let done = installed.withLock { $0 != nil }
        guard !done else { return }
        let descriptor = try SystemCall.run("sigaction(SIGUSR1)") { microapp_signal_pipe_install(number) }
        installed.withLock { $0 = descriptor }
        let thread = Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(descriptor, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                _ = listener.withLock { $0?.yield() }
            }
        }
        thread.name = "microapp update signal"
        thread.start()
    }
}
