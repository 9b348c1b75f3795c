import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappIsolation
import MicroappPlatform
import MicroappSDK
import TestScratch
import Testing

@MainActor
@Suite("Hot swap of an isolated feature")
struct IsolatedSwapTests {
    /// The screen's text once it `shows` it, waiting at most thirty seconds for the child's answer.
    static func text(of runtime: AppRuntime, showing shows: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let text = runtime.frame.screen.content.compactMap { element -> String? in
                if case .text(let text) = element { text.value } else { nil }
            }.joined()
            if shows(text) { return text }
            try #require(ContinuousClock.now < deadline, "the screen still shows '\(text)'")
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    @Test(
        "a swap hands its lock-checked copy to the new child, forked from a prepared template: moved, not copied again, and the state comes back"
    )
    func checkedCopyMoved() async throws {
        let (v1, v2) = (try await Swappy.v1.library(), try await Swappy.v2.library())
        let zygote = try await BlockingWork.run {
            try Zygote.start(executable: Swappy.microapp, environment: ChildLaunch.featureEnvironment(.process))
        }
        let log = IsolationLog(zygote: zygote, environment: .process)
        defer {
            log.stopAll()
            Thread.detachNewThread { zygote.stop() }
        }
        let first = try await IsolatedPlugin.launch(v1, log: log).get()
        let container = Container()
        let runtime = AppRuntime(
            sources: [.plugin(first)],
            resolution: DependencyResolver.resolve(
                [Candidate(manifest: first.manifest, path: first.path, trust: .own)], hostOffers: container.offers),
            container: container, options: AppRuntime.Options(now: { .now }))
        let swapper = HotSwapper(
            runtime: runtime, libraries: HotSwapper.libraries(of: [first]), probe: nil,
            swapsDirectory: Scratch.folder("isolated-swaps").path)
        swapper.isolation = log
        runtime.open("swappy://home")
        _ = try await Self.text(of: runtime) { $0.hasPrefix("Hello") }
        runtime.send(.action(.input(id: "name", text: "Rick")))
        _ = try await Self.text(of: runtime) { $0.contains("Rick") }

        #expect(try await swapper.swapLibrary(at: v2).get().to == 2)
        let text = try await Self.text(of: runtime) { $0.hasPrefix("Howdy") }
        #expect(text.contains("Rick"), "the state came back: \(text)")
        let left = Files.names(in: swapper.swapsDirectory).filter { $0.hasSuffix(".so") }
        #expect(left.isEmpty, "the checked copy moved into the child's folder: \(left)")
        swapper.stop()
    }
}
