import CPlatform
import Foundation
import MicroappCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Catches an in-process feature on trial whose Root never returns: the main thread is stuck inside the plugin, so
/// nothing on the main actor can act, and the app would stay frozen with the bad version for ever. A thread of its
/// own watches the calls the runtime makes into Roots (`AppRuntime.onFeatureCall`); one into an armed feature that
/// has not returned after `deadline` ends the app: it writes a crash report in the runtime's layout naming the
/// feature's library as the crashed thread's innermost image (where the supervisor looks), then raises SIGABRT with
/// its default action. The supervisor restarts the app without that library, and the canary's record takes the
/// version back and marks it bad, as for a crash. (The Swift runtime's own handler, run by a SIGABRT sent to the
/// main thread, never finished in the app process.) Waiting is a semaphore's timed wait: no polling.
public final class MainThreadWatchdog: @unchecked Sendable {
    /// A call into a Root in progress.
    private struct Call {
        var feature: String
        var ticket: Int
        var started: ContinuousClock.Instant
    }

    private struct State {
        /// Feature id → the path of the image its Root's code is in.
        var armed: [String: String] = [:]
        var call: Call?
        var tickets = 0
    }

    private let deadline: Duration
    private let report: String?
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// A watchdog that ends the app, writing its report to `report`, when an armed feature's call lasts past
    /// `deadline` on `clock`.
    public init(deadline: Duration, report: String?, clock: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.deadline = deadline
        self.report = report
        self.clock = clock
        Thread.detachNewThread { [self] in watch() }
    }

    /// The crash report path `SWIFT_BACKTRACE` names in `variables` (`output-to=FILE`), nil when none.
    public static func reportPath(_ variables: [String: String]) -> String? {
        (variables["SWIFT_BACKTRACE"] ?? "").split(separator: ",").first { $0.hasPrefix("output-to=") }
            .map { String($0.dropFirst("output-to=".count)) }
    }

    /// The path of the loaded image `object`'s class is defined in (a plugin's copy, for its Root).
    public static func image(of object: Any) -> String? {
        let metadata = unsafeBitCast(type(of: object) as Any.Type, to: UnsafeRawPointer.self)
        return microapp_image_path(metadata).map { FileFacts.canonicalPath(String(cString: $0)) }
    }

    /// Watches `feature`'s calls from now on (its version, in `image`, is on trial).
    public func arm(_ feature: String, image: String?) {
        guard let image else { return }
        state.withLock { $0.armed[feature] = image }
    }

    /// Stops watching `feature`'s calls (its trial ended).
    public func disarm(_ feature: String) { state.withLock { _ = $0.armed.removeValue(forKey: feature) } }

    /// The main thread is about to call `feature`'s Root (nil: the call returned).
    public func calling(_ feature: String?) {
        let armed = state.withLock { state -> Bool in
            state.tickets += 1
            state.call = feature.map { Call(feature: $0, ticket: state.tickets, started: clock()) }
            return feature.map { state.armed[$0] != nil } ?? false
        }
        if armed { wake.signal() }
    }

    private func watch() {
        while true {
            let watched = state.withLock { state in state.call.flatMap { state.armed[$0.feature] != nil ? $0 : nil } }
            guard let call = watched else {
                wake.wait()
                continue
            }
            let left = call.started + deadline - clock()
            if left > .zero {
                _ = wake.wait(timeout: .now() + left.timeInterval)
                continue
            }
            let image = state.withLock { $0.call?.ticket == call.ticket ? $0.armed[call.feature] : nil }
            if let image {
                end(call.feature, hungIn: image)
                return
            }
        }
    }

    /// Ends the process for `feature`, whose Root in `image` has not returned.
    private func end(_ feature: String, hungIn image: String) {
        let headline = "\(feature) did not return within \(deadline) on the main thread while on trial"
        FileHandle.standardError.write(Data("microapp: \(headline); ending the app\n".utf8))
        let name = (image as NSString).lastPathComponent
        let text = """
            *** Program crashed: Hung: \(headline) ***

            Thread 0 "main" crashed:

            0 0x0000000000000000 hung in \(name)

            Images:
            0x0000000000000000-0xffffffffffffffff <hung> \(name) \(image)

            """
        if let report { try? Data(text.utf8).write(to: URL(fileURLWithPath: report)) }
        // The default action, and unblocked here: the app's threads may start with SIGABRT blocked (as abort(3)
        // does for itself).
        signal(SIGABRT, SIG_DFL)
        var abort = sigset_t()
        sigemptyset(&abort)
        sigaddset(&abort, SIGABRT)
        pthread_sigmask(SIG_UNBLOCK, &abort, nil)
        raise(SIGABRT)
    }
}
