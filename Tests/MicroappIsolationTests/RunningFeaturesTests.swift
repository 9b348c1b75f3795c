import Foundation
import MicroappCore
import MicroappIsolation
import MicroappLoading
import MicroappPlatform
import TestPlugins
import TestScratch
import Testing

/// What a run composes is its own: the isolated features it started are in its registry, not in a static one every
/// run in the process shares; its files follow the environment it was given.
@Suite("A run's isolated features and files are its own")
struct RunningFeaturesTests {
    @Test("two runs in one process keep their isolated features apart: stopping one ends only its own children")
    @MainActor
    func runsAreApart() async throws {
        let folder = try Paths.folder(with: "libAuth.so")
        let first = IsolationLog(environment: .process)
        let second = IsolationLog(environment: .process)
        let plugin = try await IsolatedPlugin.launch(
            "\(folder)/libAuth.so", executable: "\(Paths.runnerDirectory)/microapp", log: first
        ).get()
        defer { first.stopAll() }
        #expect(plugin.manifest.id == "auth")
        #expect(first.running.count == 1 && second.running.count == 0)
        second.stopAll()
        #expect(first.running.count == 1, "the other run's stop left this run's child alone")
        first.stopAll()
        #expect(first.running.count == 0)
    }

    @Test(
        "the probe cache and the lock history are where the environment's XDG folders say, a relative one ignored",
        .offThePool)
    func filesFollowTheEnvironment() {
        func environment(_ variables: [String: String]) -> HostEnvironment {
            HostEnvironment(
                variables: variables, home: "/home/rick", temporaryFolder: "/scratch", currentDirectory: "/here",
                now: { ContinuousClock().now }, date: { Date() })
        }
        let set = environment(["XDG_CACHE_HOME": "/c", "XDG_STATE_HOME": "/s"])
        #expect(ProbeCache.defaultFile(in: set) == "/c/microapp/probe-cache.json")
        #expect(LockHistory(environment: set).file == "/s/microapp/locked-folders.json")
        let relative = environment(["XDG_CACHE_HOME": "cache", "XDG_STATE_HOME": "state"])
        #expect(ProbeCache.defaultFile(in: relative) == "/home/rick/.cache/microapp/probe-cache.json")
        #expect(LockHistory(environment: relative).file == "/home/rick/.local/state/microapp/locked-folders.json")
    }

    @Test(
        "an isolated feature's child gets the run's environment's PATH and locale, never its other variables",
        .offThePool)
    func childEnvironmentIsTheRuns() {
        let host = HostEnvironment(
            variables: ["PATH": "/stated/bin", "LANG": "C.UTF-8", "TOKEN": "secret"], home: nil,
            temporaryFolder: "/scratch", currentDirectory: "/here", now: { ContinuousClock().now }, date: { Date() })
        let child = ChildLaunch.featureEnvironment(host)
        #expect(child["PATH"] == "/stated/bin" && child["LANG"] == "C.UTF-8" && child["TOKEN"] == nil)
        #expect(child["MICROAPP_ALLOW_UNSANDBOXED"] == nil)
        #expect(ChildLaunch.featureEnvironment(host, allowingUnsandboxed: true)["MICROAPP_ALLOW_UNSANDBOXED"] == "1")
    }
}
