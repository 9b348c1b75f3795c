import MicroappCore
import TestScratch
import Testing

/// A clock's instant that a test moves by hand.
struct TestInstant: InstantProtocol {
    var offset: Duration

    static func seconds(_ value: Int) -> TestInstant { TestInstant(offset: .seconds(value)) }
    func advanced(by duration: Duration) -> TestInstant { TestInstant(offset: offset + duration) }
    func duration(to other: TestInstant) -> Duration { other.offset - offset }
    static func < (left: TestInstant, right: TestInstant) -> Bool { left.offset < right.offset }
}

@Suite("The supervisor's crash loop: what each ending means, which plugin goes, when it stops")
struct CrashLoopTests {
    static func crash(_ feature: String, swapped: Bool = false) -> PluginCrash {
        PluginCrash(
            feature: feature, library: "/build/lib\(feature).so",
            image: swapped ? "/tmp/copy/lib\(feature)-2.so" : "/tmp/copy/lib\(feature).so", swapped: swapped)
    }

    @Test("an app that exits, is hung up, terminated or loses its reader ends the supervisor the same way", .offThePool)
    func endingsThatAreNotCrashes() {
        let loop = CrashLoop<TestInstant>()
        #expect(loop.verdict(for: .exited(0)) == .end(.status(0), restoresTerminal: false))
        #expect(loop.verdict(for: .exited(2)) == .end(.status(2), restoresTerminal: false))
        #expect(loop.verdict(for: .hungUp) == .end(.hungUp, restoresTerminal: true))
        #expect(loop.verdict(for: .terminated) == .end(.terminated, restoresTerminal: true))
        #expect(loop.verdict(for: .outputClosed) == .end(.outputClosed, restoresTerminal: false))
        #expect(loop.verdict(for: .crashed(signal: 11, name: "Segmentation fault")) == nil)
    }

    @Test("a crash in a plugin restarts the app without it, back on the route shown, with a notice", .offThePool)
    func restartsWithoutThePlugin() {
        var loop = CrashLoop<TestInstant>()
        let verdict = loop.record(
            Self.crash("search"), headline: "Fatal error", at: .seconds(0), shownFeature: "characters",
            route: "characters://list")
        let notice =
            "search crashed (Fatal error) in /build/libsearch.so and was turned off; the app restarted without it"
        #expect(verdict == .restart(skipping: "/build/libsearch.so", notice: notice, route: "characters://list"))
        #expect(
            loop.arguments(for: ["run", "--ui", "json", "--", "extra"], stateFile: "/s/state.json") == [
                "run", "--ui", "json", "--supervised", "--state-file", "/s/state.json", "--skip-library",
                "/build/libsearch.so", "--crash-notice=\(notice)", "--open=characters://list", "--", "extra",
            ])
    }

    @Test("the first start carries only the supervisor's own options", .offThePool)
    func firstStart() {
        let loop = CrashLoop<TestInstant>()
        #expect(
            loop.arguments(for: ["run"], stateFile: "/s/state.json") == [
                "run", "--supervised", "--state-file", "/s/state.json",
            ])
    }

    @Test("a crash on the crashed feature's own screen reopens home, and a swapped copy is named as one", .offThePool)
    func crashOnItsOwnScreen() {
        var loop = CrashLoop<TestInstant>()
        let verdict = loop.record(
            Self.crash("search", swapped: true), headline: "boom", at: .seconds(0), shownFeature: "search",
            route: "search://query")
        #expect(
            verdict
                == .restart(
                    skipping: "/build/libsearch.so",
                    notice:
                        "search crashed (boom) in /tmp/copy/libsearch-2.so, a hot-swapped copy of /build/libsearch.so and was turned off; the app restarted without it",
                    route: ""))
    }

    @Test("a crash outside any plugin, or in one already turned off, cannot be isolated", .offThePool)
    func notIsolatable() {
        var loop = CrashLoop<TestInstant>()
        #expect(loop.record(nil, headline: "x", at: .seconds(0), shownFeature: nil, route: nil) == .notIsolatable)
        _ = loop.record(Self.crash("search"), headline: "x", at: .seconds(1), shownFeature: nil, route: nil)
        #expect(
            loop.record(Self.crash("search"), headline: "x", at: .seconds(2), shownFeature: nil, route: nil)
                == .notIsolatable)
    }

    @Test("the third crash within the window gives up, listing each", .offThePool)
    func givesUpAfterLimitInWindow() {
        var loop = CrashLoop<TestInstant>(window: .seconds(10), limit: 3)
        _ = loop.record(Self.crash("a"), headline: "one", at: .seconds(0), shownFeature: nil, route: nil)
        _ = loop.record(Self.crash("b"), headline: "two", at: .seconds(4), shownFeature: nil, route: nil)
        let verdict = loop.record(Self.crash("c"), headline: "three", at: .seconds(9), shownFeature: nil, route: nil)
        #expect(
            verdict
                == .giveUp([
                    "a in /tmp/copy/liba.so: one", "b in /tmp/copy/libb.so: two", "c in /tmp/copy/libc.so: three",
                ]))
    }

    @Test("crashes further apart than the window each restart", .offThePool)
    func crashesOutsideTheWindowRestart() {
        var loop = CrashLoop<TestInstant>(window: .seconds(10), limit: 3)
        for (index, feature) in ["a", "b", "c", "d"].enumerated() {
            let verdict = loop.record(
                Self.crash(feature), headline: "x", at: .seconds(index * 6), shownFeature: nil, route: nil)
            guard case .restart(let skipping, _, _) = verdict else {
                Issue.record("crash \(index) did not restart: \(verdict)")
                return
            }
            #expect(skipping == "/build/lib\(feature).so")
        }
        #expect(loop.skipped.count == 4)
    }
}
