import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import Testing

@MainActor
@Suite("A new build is prepared (copied, checked, probed) where it was built; the swap only maps it")
struct PreparedSwapTests {
    @Test("a build probed in its preparation swaps in with no probe at swap time, its state kept")
    func preparedBuildSwapsWithoutProbing() async throws {
        let rig = try await SwapRig()
        rig.use(name: "Rick", taps: 1)
        let preparation = rig.swapper.preparation(for: "swappy")
        let library = try await Swappy.v2.library()
        let prepared = await BlockingWork.run { preparation.prepare(library) }
        // No probe could run now: the waiting one is ended and a new one could not start.
        rig.swapper.stop()
        rig.swapper.probe = PluginProbe(executable: "/nonexistent/microapp", environment: .process)
        let result = try await rig.swapper.swap(prepared).get()
        #expect(result.from == 1 && result.to == 2 && result.stateKept)
        #expect(rig.screen.contains("Howdy, Rick taps 1"))
    }

    @Test("a build its preparation's probe found crashing is refused at swap time, and v1 keeps answering")
    func preparedCrashingBuildIsRefused() async throws {
        let rig = try await SwapRig()
        rig.use(name: "Rick", taps: 1)
        let preparation = rig.swapper.preparation(for: "swappy")
        let library = try await Swappy.trapping.library()
        let prepared = await BlockingWork.run { preparation.prepare(library) }
        let refused = await rig.swapper.swap(prepared)
        #expect(refused.failure?.code == .probeCrashed)
        #expect(rig.runtime.frame.version == 1)
        rig.runtime.send(.action(.tap(id: "tap")))
        #expect(rig.screen.contains("Hello, Rick taps 2"))
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
