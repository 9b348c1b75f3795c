import Foundation
import MicroappCore
import MicroappPlatform
import MicroappShipping

/// `run --channel`: the running app follows a channel. It checks at start, every `every`, on SIGUSR1 and on a
/// `check-updates` event, always in the background (the check's downloads never hold a frame; only the swap waits for
/// the app to be between events). Each release the updater installs is swapped in by the `HotSwapper` (copy, lock
/// check, probe or a new child, state kept) and put on trial by the `Canary`: a crash, a hang or a refused start of
/// the new version within the window goes back to the version that ran before, which keeps serving, and the
/// updater marks the new one bad. Every outcome is a notice: installed, refused, rolled back, passed.
@MainActor
public final class ChannelWatch {
    private let swapper: HotSwapper
    private let updates: any ChannelUpdates
    private var canary: Canary<ContinuousClock.Instant>
    private let every: Duration?
    private var runtime: AppRuntime { swapper.runtime }
    /// True while a check runs; a request meanwhile is remembered in `again` and made once it ends.
    private var checking = false
    private var again = false
    /// When the check under way began.
    private var checkStarted: ContinuousClock.Instant?
    private var tasks: [Task<Void, Never>] = []
    /// The plugin folder of each feature on trial, whose `CanaryRecord` lists it meanwhile (and for `crashGrace`
    /// after its window).
    private var trialFolders: [String: String] = [:]
    /// Feature → the version whose window passed and whose record stays on disk for `crashGrace` more.
    private var graceTrials: [String: Int] = [:]
    /// How long after its window a crash that ends the app (an in-process one) still counts against a version: its
    /// record stays in the folder so long, so the supervised restart takes it back and marks it bad. A release that
    /// crashed 31 s after its swap otherwise crashed every later start unmarked.
    public static let crashGrace = Duration.seconds(30)
    private var stopSignal: (@Sendable () -> Void)?
    /// How long an in-process Root on trial may take to return before the app is ended (nil: not watched).
    private let hangDeadline: Duration?
    /// Ends the app when an in-process Root on trial does not return (made at `start`, on the main thread).
    private var watchdog: MainThreadWatchdog?
    /// Where the app's crash report goes (the supervisor's), for the watchdog's.
    private let crashReport: String?

    /// Follows `updates`' channel, swapping with `swapper`; new versions are on trial for `window`; a check every
    /// `every` (nil: only at start, on the signal and on the event). With `hangDeadline`, an in-process Root on trial
    /// that does not return within it ends the app (`MainThreadWatchdog`, its report written to `crashReport`); the
    /// supervised restart takes it back.
    public init(
        swapper: HotSwapper, updates: any ChannelUpdates, window: Duration, every: Duration?,
        hangDeadline: Duration? = nil, crashReport: String? = nil
    ) {
        self.hangDeadline = hangDeadline
        self.crashReport = crashReport
        self.swapper = swapper
        self.updates = updates
        self.canary = Canary(window: window)
        self.every = every
    }

    /// Starts following: a first check now, then on each trigger; the runtime's stops reach the canary.
    public func start(listeningForSignal: Bool = true) {
        runtime.onCheckUpdates = { [weak self] in self?.requestCheck(asked: true) }
        runtime.onFeatureStop = { [weak self] feature, stop in self?.featureStopped(feature, stop) }
        if let hangDeadline {
            let watchdog = MainThreadWatchdog(deadline: hangDeadline, report: crashReport, clock: runtime.options.now)
            self.watchdog = watchdog
            runtime.onFeatureCall = { watchdog.calling($0) }
        }
        if listeningForSignal {
            do {
                let (signals, stop) = try UpdateSignal.received()
                stopSignal = stop
                tasks.append(
                    Task { [weak self] in
                        for await _ in signals { self?.requestCheck(asked: true) }
                    })
            } catch {
                runtime.post(
                    Notice(
                        level: .error, code: .noUpdateSignal,
                        message: "SIGUSR1 cannot ask for a check: \(error.problem.reason)",
                        fix: "send {\"type\":\"check-updates\"} instead, or wait for the next periodic check"))
            }
        }
        if let every {
            tasks.append(
                Task { [weak self] in
                    while (try? await Task.sleep(for: every)) != nil { self?.requestCheck() }
                })
        }
        requestCheck()
    }

    /// Stops following (the app quits): a trial not over by now is not held against its version.
    public func stop() {
        for feature in trialFolders.keys.sorted() { endTrial(feature) }
        tasks.forEach { $0.cancel() }
        tasks = []
        stopSignal?()
        stopSignal = nil
        runtime.onCheckUpdates = nil
        runtime.onFeatureStop = nil
        runtime.onFeatureCall = nil
    }

    /// Starts a check unless one runs; then one more follows it, so a request is never lost. A request someone
    /// `asked` for (the event, the signal) during a check is told so, with how long that check has run: a server
    /// that trickles holds it until its deadline, and silence then would look like a request ignored.
    public func requestCheck(asked: Bool = false) {
        guard !checking else {
            again = true
            if asked, let checkStarted { postUnderWay(since: checkStarted) }
            return
        }
        checking = true
        Task {
            repeat {
                again = false
                checkStarted = runtime.options.now()
                await check()
            } while again
            checking = false
            checkStarted = nil
        }
    }

    /// Says a check has been under way since `started`, ends by its deadline, and the request follows it.
    private func postUnderWay(since started: ContinuousClock.Instant) {
        let elapsed = runtime.options.now() - started
        runtime.post(
            Notice(
                level: .info, code: .updateCheckUnderWay,
                message:
                    "A check of \(updates.channel) has been under way for \(elapsed.components.seconds) s (it ends "
                    + "within \(updates.deadline.components.seconds) s of its start); another follows it",
                milliseconds: Int(elapsed.wholeMilliseconds)))
    }

    /// One check: the updater's work off the main actor, then each installed release swapped in and put on trial.
    private func check() async {
        let running = Dictionary(
            runtime.runningFeatures.compactMap { manifest in runtime.version(of: manifest.id).map { (manifest.id, $0) }
            },
            uniquingKeysWith: { first, _ in first })
        let updates = self.updates
        let outcome = await BlockingWork.run { updates.check(running: running) }
        if let failure = outcome.failure {
            runtime.post(
                Notice(
                    level: .error, code: .updateCheckFailed,
                    message: "The check of \(updates.channel) failed: \(failure.reason); nothing changed",
                    fix: failure.fix, detail: [failure.subject]))
        }
        for note in outcome.trusted {
            runtime.post(Notice(level: .info, code: .trustRotated, message: "Following \(updates.channel): \(note)"))
        }
        for problem in outcome.refused {
            runtime.post(
                Notice(
                    level: .error, code: .updateRefused,
                    message: "\(problem.subject): refused: \(problem.reason); nothing changed", fix: problem.fix))
        }
        if outcome.installed.isEmpty && outcome.refused.isEmpty && outcome.failure == nil {
            // Said, so a person (and a script) knows the check ran; what was passed over as bad is in the detail.
            runtime.post(
                Notice(
                    level: .info, code: .updateChecked,
                    message: "Checked \(updates.channel): nothing new to install",
                    detail: outcome.skipped.isEmpty ? nil : outcome.skipped.map { "\($0.subject): \($0.reason)" }))
        }
        for installed in outcome.installed { await swapIn(installed, replacing: running[installed.feature]) }
    }

    /// Swaps in a release the updater installed; a refused start is a failed trial like a crash.
    private func swapIn(_ installed: ChannelCheck.Installed, replacing previous: Int?) async {
        let id = installed.feature
        let previous = previous ?? runtime.version(of: id) ?? 0
        canary.began(id, version: installed.version, replacing: previous, at: runtime.options.now())
        // On disk first: an in-process version that crashes takes the app before the canary can act (see
        // `CanaryRecord`); the next start takes it back.
        let folder = (installed.library as NSString).deletingLastPathComponent
        trialFolders[id] = folder
        graceTrials[id] = nil
        CanaryRecord.begin(
            .init(
                feature: id, version: installed.version, previous: previous,
                library: (installed.library as NSString).lastPathComponent), in: folder)
        switch await swapper.swapLibrary(at: installed.library, feature: id) {
        case .success(let swapped):
            runtime.post(
                Notice(
                    level: .info, code: .updated,
                    message:
                        "\(id) updated v\(swapped.from) → v\(swapped.to) from \(updates.channel); on trial for "
                        + "\(canary.window.components.seconds) s",
                    feature: id, from: swapped.from, to: swapped.to, milliseconds: swapped.milliseconds))
            if let root = runtime.root(of: id) { watchdog?.arm(id, image: MainThreadWatchdog.image(of: root)) }
            scheduleTrialEnd()
        case .failure(let problem) where problem.code == .routeConflict:
            // Routes are fixed while running: the release stays installed and runs from the next start.
            _ = canary.failed(id, .refused(problem.reason), at: runtime.options.now())
            endTrial(id)
        case .failure(let problem):
            await rollBack(id, .refused("it was refused (\(problem.reason))"), swappedIn: false)
        }
    }

    /// A stop of a feature on trial fails the trial.
    private func featureStopped(_ feature: String, _ stop: FeatureStop) {
        guard canary.trials[feature] != nil else { return }
        let failure: Canary<ContinuousClock.Instant>.Failure =
            if case .hung = stop.cause { .hung(stop.reason) } else { .crashed(stop.reason) }
        Task { await rollBack(feature, failure, swappedIn: true) }
    }

    /// Has the updater put the plugin folder back to the version that ran before (pinned again in its lock, the new
    /// one marked bad), then goes back to it in the app (when the new one was swapped in), and says what happened —
    /// never more than did. The folder goes first: an isolated version restarts in a new child, whose library is
    /// checked against the lock, which must pin the version restored by then. A version the folder may not run again
    /// (its key is no longer trusted) is not gone back to at all.
    private func rollBack(
        _ feature: String, _ failure: Canary<ContinuousClock.Instant>.Failure, swappedIn: Bool
    ) async {
        guard let rollback = canary.failed(feature, failure, at: runtime.options.now()) else { return }
        defer { endTrial(feature) }
        let work = "the rollback of \(feature) v\(rollback.bad)"
        runtime.hold(work)
        defer { runtime.release(work) }
        let updates = self.updates
        let rejected = await BlockingWork.run {
            updates.reject(feature, bad: rollback.bad, restored: rollback.restored)
        }
        if let problem = rejected, problem.code == .versionUntrusted {
            runtime.rollbackFailed(
                feature, named: "\(feature) v\(rollback.bad)",
                why: "failed its canary window (\(rollback.reason))", to: rollback.restored, problem)
            return
        }
        if let problem = rejected {
            runtime.post(
                Notice(
                    level: .error, code: .updateRejectFailed,
                    message: "\(feature) v\(rollback.bad) could not be marked bad: \(problem.reason)",
                    fix: problem.fix, feature: feature))
        }
        // The runtime says rollback-failed itself, with why and what runs: nothing more is said then.
        if swappedIn, case .failure = await runtime.rollingBack(feature) { return }
        if rejected == nil { runtime.post(rollback.notice) }
    }

    /// Clears `feature`'s trial from its folder's record.
    private func endTrial(_ feature: String) {
        watchdog?.disarm(feature)
        graceTrials[feature] = nil
        guard let folder = trialFolders.removeValue(forKey: feature) else { return }
        CanaryRecord.end(feature, in: folder)
    }

    /// Ends the trials whose window is over at the next end, each with a notice.
    private func scheduleTrialEnd() {
        guard let end = canary.nextEnd else { return }
        tasks.append(
            Task { [weak self] in
                guard (try? await Task.sleep(until: end, clock: .continuous)) != nil, let self else { return }
                for trial in self.canary.passed(at: self.runtime.options.now()) {
                    self.runtime.post(self.canary.passedNotice(trial))
                    self.keepRecordForGrace(trial.feature, version: trial.version)
                }
            })
    }

    /// Ends `feature`'s trial in the app (the watchdog lets go) but keeps its record on disk for `crashGrace`:
    /// a crash that ends the app meanwhile still takes `version` back at the restart.
    private func keepRecordForGrace(_ feature: String, version: Int) {
        watchdog?.disarm(feature)
        graceTrials[feature] = version
        tasks.append(
            Task { [weak self] in
                guard (try? await Task.sleep(for: Self.crashGrace)) != nil, let self,
                    self.graceTrials[feature] == version
                else { return }
                self.endTrial(feature)
            })
    }
}
