import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// SIGUSR1 as a request to check the app's channel now (`kill -USR1 <pid>` of the app or of its supervisor, which
/// passes it on). The signal's default action ends a process: the app takes it over only while it follows a channel.
public enum UpdateSignal {
    /// The signal: SIGUSR1.
    public static let number = SIGUSR1

    /// Each SIGUSR1 this process receives from now on, as one element, on the main queue; `stop()` gives the signal
    /// back its default action.
    @MainActor
    public static func received() -> (events: AsyncStream<Void>, stop: @MainActor () -> Void) {
        // Ignored first, so the signal no longer ends the process; the source still hears it (it reads pending
        // signals with signalfd-like delivery in Dispatch, not through a handler).
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
        let (events, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        source.setEventHandler { continuation.yield() }
        source.resume()
        return (
            events,
            {
                source.cancel()
                continuation.finish()
                signal(number, SIG_DFL)
            }
        )
    }
}
