import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappPlatform
import MicroappShipping
import Synchronization
import TestScratch
import Testing

/// An updater that installs what a test queued: each check copies the next library into the plugin folder and pins
/// it in the lock, as the real updater does, and records what the canary took back.
final class QueuedUpdates: ChannelUpdates {
    let channel = "test-channel"
    let folder = Scratch.folder("live-updates").path
    private let queue = Mutex<[(version: Int, library: String)]>([])
    private let rejections = Mutex<[String]>([])
    private let checks = Mutex(0)
    let failing: Problem?
    /// What each check says it changed in the trust list.
    let trusted: [String]

    init(failing: Problem? = nil, trusted: [String] = []) {
        self.failing = failing
        self.trusted = trusted
    }

    /// The next check installs `build`'s library as `version` of swappy.
    func publish(_ build: Swappy, version: Int) async throws {
        let library = try await build.library()
        queue.withLock { $0.append((version, library)) }
    }

    /// `feature vBAD → vRESTORED` for each rejection, in order.
    var rejected: [String] { rejections.withLock { $0 } }

    /// How many checks ran.
    var checkCount: Int { checks.withLock { $0 } }

    func check(running: [String: Int]) -> ChannelCheck {
        checks.withLock { $0 += 1 }
        if let failing { return ChannelCheck(failure: failing) }
        guard let next = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
            return ChannelCheck(trusted: trusted)
        }
        do {
            try LockedSwapTests.drop(next.library, into: folder)
            try LockedSwapTests.lock(folder, to: next.library)
        } catch {
            return ChannelCheck(failure: Problem(code: "test", subject: folder, reason: "\(error)", fix: ""))
        }
        return ChannelCheck(
            installed: [.init(feature: "swappy", version: next.version, library: folder + "/libSwappy.so")])
    }

    func reject(_ feature: String, bad: Int, restored: Int) -> Problem? {
        rejections.withLock { $0.append("\(feature) v\(bad) → v\(restored)") }
        return nil
    }
}

@MainActor
@Suite("A running app follows a channel (in process)")
struct ChannelWatchTests {
    @Test("a check swaps the installed release in with its state, and a notice names the feature, old and new version")
    func checkSwapsInstalledReleaseIn() async throws {
        let rig = try await SwapRig()
        rig.use(name: "Morty", taps: 2)
        let updates = QueuedUpdates()
        try await updates.publish(.v2, version: 2)
        let watch = rig.follow(updates)
        defer { watch.stop() }

        let updated = try await rig.notice { $0.code == "updated" }
        #expect(updated.feature == "swappy" && updated.from == 1 && updated.to == 2)
        #expect(updated.message.hasPrefix("swappy updated v1 → v2 from test-channel; on trial for 30 s"))
        #expect(rig.runtime.frame.version == 2)
        #expect(rig.screen.contains("Howdy, Morty taps 2"))
        #expect(updates.rejected.isEmpty)
        // On trial, on disk too: a crash that takes the app is answered by the next start.
        #expect(CanaryRecord.read(updates.folder).trials["swappy"]?.previous == 1)
    }

    @Test(
        "a version that lasts its window passes: a notice says so; the folder's record of the trial stays for the crash grace after it (a crash that ends the app still counts), and quitting clears it"
    )
    func trialPasses() async throws {
        let rig = try await SwapRig()
        let updates = QueuedUpdates()
        try await updates.publish(.v2, version: 2)
        let watch = rig.follow(updates, window: .milliseconds(50))
        let passed = try await rig.notice { $0.code == "canary-passed" }
        #expect(passed.feature == "swappy" && passed.from == 1 && passed.to == 2)
        #expect(CanaryRecord.read(updates.folder).trials["swappy"]?.version == 2)
        #expect(updates.rejected.isEmpty && rig.runtime.frame.version == 2)
        watch.stop()
        #expect(CanaryRecord.read(updates.folder).trials.isEmpty)
    }

    @Test("a release whose probe refuses it is taken back and marked bad; the running version never stopped")
    func refusedReleaseRolledBack() async throws {
        let rig = try await SwapRig()
        rig.use(name: "Beth", taps: 1)
        let updates = QueuedUpdates()
        try await updates.publish(.trapping, version: 2)
        let watch = rig.follow(updates)
        defer { watch.stop() }

        let rolledBack = try await rig.notice { $0.code == "update-rolled-back" }
        #expect(rolledBack.level == .error && rolledBack.from == 2 && rolledBack.to == 1)
        #expect(rolledBack.message.hasPrefix("swappy v2 was rolled back to v1: it was refused ("))
        #expect(rolledBack.message.hasSuffix("v2 is marked bad and will not be installed again"))
        #expect(updates.rejected == ["swappy v2 → v1"])
        #expect(CanaryRecord.read(updates.folder).trials.isEmpty)
        #expect(rig.runtime.frame.version == 1)
        #expect(rig.screen.contains("Hello, Beth taps 1"))
    }

    @Test("a check event starts a check; a failed check changes nothing and says why")
    func failedCheckChangesNothing() async throws {
        let rig = try await SwapRig()
        let updates = QueuedUpdates(
            failing: Problem(
                code: "channel-unreachable", subject: "http://127.0.0.1:9/", reason: "the connection was refused",
                fix: "check the URL"))
        let watch = rig.follow(updates)
        defer { watch.stop() }
        _ = try await rig.notice { $0.code == "update-check-failed" }
        rig.runtime.send(.checkUpdates)
        try await rig.notice(count: 2) { $0.code == "update-check-failed" }
        let failed = try await rig.notice { $0.code == "update-check-failed" }
        #expect(failed.message == "The check of test-channel failed: the connection was refused; nothing changed")
        #expect(failed.fix == "check the URL")
        #expect(updates.checkCount == 2)
        #expect(rig.runtime.frame.version == 1)
    }

    @Test("a key rotation a check followed is told as a trust-rotated notice")
    func rotationIsTold() async throws {
        let rig = try await SwapRig()
        let updates = QueuedUpdates(trusted: ["acme's key rotated to 0123456789abcdef, announced by its old key fedcba"]
        )
        let watch = rig.follow(updates)
        defer { watch.stop() }
        let told = try await rig.notice { $0.code == "trust-rotated" }
        #expect(
            told.message
                == "Following test-channel: acme's key rotated to 0123456789abcdef, announced by its old key fedcba")
        #expect(told.level == .info)
    }

    @Test("without a channel, a check event is answered with no-channel")
    func noChannel() async throws {
        let rig = try await SwapRig()
        rig.runtime.send(.checkUpdates)
        let refused = try await rig.notice { $0.code == "no-channel" }
        #expect(refused.fix == "start it with `microapp run --channel URL`")
    }
}

extension SwapRig {
    /// Follows `updates`' channel (no signal, no periodic check), new versions on trial for `window`.
    func follow(_ updates: QueuedUpdates, window: Duration = .seconds(30)) -> ChannelWatch {
        let watch = ChannelWatch(swapper: swapper, updates: updates, window: window, every: nil)
        watch.start(listeningForSignal: false)
        return watch
    }

    /// Waits until `count` notices match `predicate`.
    func notice(count: Int, where predicate: (Notice) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while notices.filter(predicate).count < count {
            guard ContinuousClock.now < deadline else { throw NoSuchNotice(notices: notices) }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
