import CPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM and SIGHUP sent to a parent passed on to its current child, so the parent outlives the child and can
/// clean up after it (the supervisor removes its private folder; a closed terminal or `kill` leaves nothing behind).
/// The handler is C (async-signal-safe): it records the signal and sends it to the child set with `forward(to:)`.
public enum TerminationForwarding {
    /// The signals passed on.
    public static let signals = [SIGTERM, SIGHUP]

    /// The signals passed on without ending this process: SIGUSR1 asks the app to check its channel for updates.
    public static let passedOn = [UpdateSignal.number]

    /// Installs the handler for `signals` and `passedOn` in this process; a child made later must set them back to
    /// default.
    public static func install() throws(SystemCallError) {
        _ = try SystemCall.run("sigaction(SIGTERM, SIGHUP)") { microapp_forward_termination_install() }
        for signal in passedOn {
            _ = try SystemCall.run("sigaction(SIGUSR1)") { microapp_forward_signal_install(signal) }
        }
    }

    /// Runs `wait` with the signals going to `child` meanwhile (one received before goes at once), then to none.
    public static func forward<T>(to child: pid_t, while wait: () -> T) -> T {
        microapp_forward_termination_to(child)
        defer { microapp_forward_termination_to(0) }
        return wait()
    }

    /// The last of `signals` this process received since `install`, or nil.
    public static var received: Int32? {
        let signal = microapp_forward_termination_received()
        return signal == 0 ? nil : signal
    }
}
