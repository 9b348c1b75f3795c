import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import Synchronization

extension HotSwapper {
    /// A new build made ready to swap, off the main actor: copied to a unique path, checked against its folder's
    /// lock, and probed in the waiting child (unless its feature runs isolated, where the sandbox stands in).
    public struct Prepared: Sendable {
        /// The build as it was found.
        public let path: String
        /// The feature it is a build of.
        public let feature: String
        /// When its preparation started: the swap's notice counts from here.
        public let started: ContinuousClock.Instant
        /// Its private copy, or why it could not be made or may not run.
        let copy: Result<LibraryCopy, Problem>
        /// The probe's verdict on the copy; nil when it was not probed.
        let verdict: PluginProbe.Verdict?
    }

    /// Everything preparing a build of one feature needs, taken from the swapper on the main actor.
    ///
    /// Why preparing where the build ran: the probe of a new build (~5 ms in a waiting child, ~12 ms on a loaded
    /// machine) was on the swap's critical path, between the build's end and the swap, with the app held. The
    /// library's bytes are final once its link returns, so the watch loop copies, lock-checks and probes them on the
    /// build's thread, and the swap only maps the copy and hands the state over (`hot-swap-benchmark`: ~1 ms). An
    /// unprobed swap of the developer's own builds under the supervisor was the other option: a build that traps in
    /// its registration or first screen would then end the app, and the supervisor's restart turns the feature off
    /// and loses every feature's state, for a saving of the same few milliseconds.
    public struct Preparation: Sendable {
        /// The feature the build is of.
        public let feature: String
        let probe: PluginProbe?
        let directory: String
        let copies: Counter
        let standby: StandbyProbe
        let now: @Sendable () -> ContinuousClock.Instant

        /// Copies, lock-checks and probes the build at `path`. Blocks (a probe process): call it off the main actor.
        public func prepare(_ path: String) -> Prepared {
            let started = now()
            let copy = copyToUniquePath(path).flatMap { copy -> Result<LibraryCopy, Problem> in
                // A locked folder pins its libraries' bytes: a build the lock does not pin is not run (checked on the
                // digest of the copy, read once, so the bytes checked are the bytes loaded).
                if let problem = PluginLock.swapProblem(for: path, sha256: copy.sha256) { return .failure(problem) }
                return .success(copy)
            }
            var verdict: PluginProbe.Verdict?
            if let probe, case .success(let made) = copy {
                verdict = probe.verdict(for: made, using: standby.take())
                standby.refill(probe)
            }
            return Prepared(path: path, feature: feature, started: started, copy: copy, verdict: verdict)
        }

        /// Copies `path` (opened once, `LibraryCopy`: hashed while copied, a symbolic link resolved once) to a new
        /// file in `directory`, readable by its owner only.
        private func copyToUniquePath(_ path: String) -> Result<LibraryCopy, Problem> {
            let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            let copy = "\(name)-\(ProcessStatus.current)-\(copies.next()).so"
            do {
                try Files.makeDirectory(directory, permissions: 0o700)
                try? Files.remove((directory as NSString).appendingPathComponent(copy))
            } catch {
                return .failure(
                    Problem(
                        .loadFailed, subject: path, reason: "it could not be copied to \(directory): \(error)",
                        fix: "make \(directory) writable, or free some disk space"))
            }
            return LibraryCopy.make(path, in: directory, name: copy)
        }
    }

    /// Numbers copies, from any thread.
    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func next() -> Int { value.add(1, ordering: .relaxed).newValue }
    }

    /// The probe process waiting for the next build, taken and refilled from any thread.
    final class StandbyProbe: Sendable {
        private let waiting = Mutex<PluginProbe.Standby?>(nil)

        /// The waiting process, once.
        func take() -> PluginProbe.Standby? { waiting.withLock { $0.take() } }

        /// Starts a process to wait for the next build (none without a probe).
        func refill(_ probe: PluginProbe?) {
            let next = probe?.standby()
            waiting.withLock { $0 = next }
        }

        /// Ends the waiting process.
        func cancel() { take()?.cancel() }
    }
}
