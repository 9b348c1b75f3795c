import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import TestScratch
import Testing

/// A running app with v1 of `swappy` on screen, and the swapper that takes new builds.
@MainActor
final class SwapRig {
    let runtime: AppRuntime
    let swapper: HotSwapper
    private(set) var notices: [Notice] = []

    init() async throws {
        let image = try PluginLoader.load(try await Swappy.v1.library()).get()
        let container = Container()
        runtime = AppRuntime(
            images: [image], resolution: PluginSet.resolve([image], container: container, trust: { _ in .own }),
            container: container, options: AppRuntime.Options(now: { .now }))
        let folder = Scratch.folder("swaps").path
        swapper = HotSwapper(
            runtime: runtime, libraries: HotSwapper.libraries(of: [image]),
            probe: PluginProbe(executable: Swappy.microapp, environment: .process, timeout: .seconds(3)),
            swapsDirectory: folder)
        runtime.onUpdate = { [weak self] _, notices in self?.notices += notices }
        runtime.open("swappy://home")
    }

    /// The screen on top as JSON text.
    var screen: String {
        String(decoding: (try? JSONEncoder().encode(runtime.frame.screen)) ?? Data(), as: UTF8.self)
    }

    /// The first notice that matches `predicate`, once the runtime's scheduled update delivered it; throws after
    /// thirty seconds with the notices so far.
    func notice(where predicate: (Notice) -> Bool) async throws -> Notice {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            if let notice = notices.first(where: predicate) { return notice }
            guard ContinuousClock.now < deadline else {
                throw NoSuchNotice(notices: notices)
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Types a name and taps `taps` times.
    func use(name: String, taps: Int) {
        runtime.send(.action(.input(id: "name", text: name)))
        for _ in 0..<taps { runtime.send(.action(.tap(id: "tap"))) }
    }

    func swap(to version: Swappy) async throws -> Result<SwapResult, Problem> {
        await swapper.swapLibrary(at: try await version.library())
    }
}

@MainActor
@Suite("Hot swap")
struct HotSwapTests {
    @Test("state is kept across v1 → v2 and the new text shows")
    func stateKept() async throws {
        let rig = try await SwapRig()
        rig.use(name: "Rick", taps: 2)
        #expect(rig.screen.contains("Hello, Rick taps 2"))
        let result = try await rig.swap(to: .v2).get()
        #expect(result.from == 1 && result.to == 2 && result.stateKept)
        #expect(rig.screen.contains("Howdy, Rick taps 2"))
        #expect(rig.runtime.frame.version == 2)
        rig.runtime.send(.action(.tap(id: "tap")))
        #expect(rig.screen.contains("Howdy, Rick taps 3"))
        let swapped = try await rig.notice { $0.code == "swapped" }
        #expect(swapped.feature == "swappy" && swapped.from == 1 && swapped.to == 2 && swapped.milliseconds != nil)

        // The app's copies of new builds go when it quits.
        let copies = {
            ((try? FileManager.default.contentsOfDirectory(atPath: rig.swapper.swapsDirectory)) ?? []).filter {
                $0.hasSuffix(".so")
            }
        }
        #expect(!copies().isEmpty)
        rig.swapper.quit()
        #expect(copies().isEmpty, "\(copies())")
    }

    @Test(
        "a broken build is refused with its reason and v1 keeps answering",
        arguments: [
            (Swappy.trapping, "probe-crashed"), (.hanging, "probe-hung"), (.otherSDK, "sdk-mismatch"),
            (.renamed, "bad-manifest"),
        ])
    func brokenBuildRefused(version: Swappy, code: String) async throws {
        let rig = try await SwapRig()
        rig.use(name: "Morty", taps: 1)
        let result = try await rig.swap(to: version)
        guard case .failure(let problem) = result else {
            Issue.record("\(version) was swapped in")
            return
        }
        #expect(problem.code.rawValue == code)
        #expect(rig.runtime.frame.version == 1)
        rig.runtime.send(.action(.tap(id: "tap")))
        #expect(rig.screen.contains("Hello, Morty taps 2"))
        let error = try await rig.notice { $0.level == .error }
        #expect(error.code == code && error.feature == "swappy" && error.message.contains("v1 keeps running"))
        if version == .otherSDK { #expect(error.message.contains("restart the host")) }
    }

    @Test("a changed state shape restores what it can, with defaults for the rest")
    func reshapedState() async throws {
        let rig = try await SwapRig()
        rig.use(name: "Summer", taps: 3)
        let result = try await rig.swap(to: .reshaped).get()
        #expect(result.stateKept)
        #expect(rig.screen.contains("Howdy, Summer visits 0"))
    }

    @Test("a version that refuses the state runs with its screen fresh, and says so")
    func refusedState() async throws {
        let rig = try await SwapRig()
        rig.use(name: "Beth", taps: 1)
        let result = try await rig.swap(to: .strict).get()
        #expect(!result.stateKept && result.to == 2)
        #expect(rig.screen.contains("Howdy,  stars 0"))
        _ = try await rig.notice { $0.code == "state-reset" }
    }

    @Test("a version that refuses the state and then cannot start again is not swapped in: v1 keeps its state")
    func refusedStateAndFailedRestart() async throws {
        let rig = try await SwapRig()
        rig.use(name: "Squanchy", taps: 2)
        let result = try await rig.swap(to: .startsOnce)
        guard case .failure(let problem) = result else {
            Issue.record("a version whose Root could not be made was swapped in")
            return
        }
        #expect(problem.code == .startFailed && problem.subject == "swappy")
        #expect(problem.reason.contains("makeRoot works once only"))
        #expect(rig.runtime.frame.version == 1)
        #expect(!rig.runtime.canRollBack("swappy"))
        rig.runtime.send(.action(.tap(id: "tap")))
        #expect(rig.screen.contains("Hello, Squanchy taps 3"))
        let error = try await rig.notice { $0.level == .error }
        #expect(error.code == "start-failed" && error.feature == "swappy" && error.message.contains("v1 keeps running"))
        #expect(!rig.notices.contains { $0.code == "state-reset" || $0.code == "swapped" })
    }

    @Test("rollback goes back to the previous version with the current state")
    func rollback() async throws {
        let rig = try await SwapRig()
        rig.use(name: "Jerry", taps: 1)
        _ = try await rig.swap(to: .v2).get()
        #expect(rig.runtime.canRollBack("swappy"))
        rig.runtime.send(.action(.tap(id: "tap")))
        rig.runtime.send(.rollback(feature: "swappy"))
        #expect(rig.screen.contains("Hello, Jerry taps 2"))
        #expect(rig.runtime.frame.version == 1)
        #expect(!rig.runtime.canRollBack("swappy"))
        rig.runtime.send(.rollback(feature: "swappy"))
        _ = try await rig.notice { $0.code == "rolled-back" && $0.from == 2 && $0.to == 1 }
        _ = try await rig.notice { $0.code == "no-previous-version" }
        // Numbers only grow: the next swap is v3, not v2 again.
        #expect(try await rig.swap(to: .v2).get().to == 3)
    }

    @Test("each swap loads a copy at a new path; the build's own file is never loaded twice")
    func uniqueCopies() async throws {
        let rig = try await SwapRig()
        _ = try await rig.swap(to: .v2).get()
        _ = try await rig.swap(to: .v2).get()
        let copies = try FileManager.default.contentsOfDirectory(atPath: rig.swapper.swapsDirectory)
        #expect(copies.count == 2 && Set(copies).count == 2)
        #expect(rig.runtime.frame.version == 3)
    }
}

/// No notice matched within the wait; these came instead.
struct NoSuchNotice: Error, CustomStringConvertible {
    var notices: [Notice]

    var description: String { "no notice as expected arrived within thirty seconds; the notices: \(notices)" }
}
