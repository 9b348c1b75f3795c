import Foundation
import MicroappPlatform
import MicroappSDK
import MicroappShipping
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `run --channel`: the running app takes releases from a channel, and a bad one rolls itself back.
@Suite("End to end: a running app updates from a channel", .serialized, .promptResumes)
struct LiveUpdateEndToEndTests {
    /// `tick` with a counter, at `version`, whose screen says `greeting` and the count; with `crashes`, it offers
    /// Crash, which aborts its process, and Hang, which never returns. Its library has the name `UpdateWorld` publishes (`libTick.so`).
    private static func source(version: Int, greeting: String, crashes: Bool = false) -> String {
        """
        import Foundation
        import MicroappSDK

        public enum TickFeature: Feature {
            public static var manifest: FeatureManifest {
                FeatureManifest(
                    id: "tick", version: \(version), displayName: "Tick", routes: [RouteDeclaration("tick://home")])
            }
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root { TickRoot() }
        }

        @MainActor final class TickRoot: Root {
            var count = 0
            func screen(at location: Location) -> Screen {
                Screen(title: "Tally", content: [
                    .text(Text("\(greeting) \\(count)")), .button(Button(id: "bump", title: "Bump")),
                ] + (\(crashes) ? [.button(Button(id: "crash", title: "Crash")), .button(Button(id: "hang", title: "Hang"))] : []))
            }
            func handle(_ action: Action, at location: Location) {
                if case .tap(id: "bump") = action { count += 1 }
                if case .tap(id: "crash") = action { abort() }
                if case .tap(id: "hang") = action { while true { sleep(1) } }
            }
            func snapshot() -> Data? { Data("\\(count)".utf8) }
            func restore(from snapshot: Data) throws { count = Int(String(decoding: snapshot, as: UTF8.self)) ?? 0 }
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(TickFeature.self)
        }
        """
    }

    private static func build(version: Int, greeting: String, crashes: Bool = false) async throws -> Data {
        try Data(
            contentsOf: try await compilePlugin(
                module: "Tick", source: source(version: version, greeting: greeting, crashes: crashes)
            ).appendingPathComponent("libTick.so"))
    }

    /// `UpdateWorld`'s person, publisher and channel, with `first` as the plugin folder's (locked) `libTick.so`, and
    /// the channel holding it as release 1.
    private static func world(running first: Data) async throws -> UpdateWorld {
        let world = try await UpdateWorld.make()
        try TickFolder(world, "plugins").install(first)
        try await world.publish(1, library: first)
        return world
    }

    /// `run` following `channel` for the plugin folder of `world`, with `isolation`, supervised unless told.
    private static func app(
        _ world: UpdateWorld, channel: String, isolation: String, supervised: Bool = true,
        environment: [String: String] = [:], window: String = "30"
    ) throws -> AppProcess {
        try AppProcess(
            ["run", "--isolation", isolation, "--plugins", world.plugins, "--only", "tick", "--ui", "json"]
                + ["--channel", channel, "--check-every", "60", "--canary-window", window]
                + (supervised ? [] : ["--no-supervise"]),
            // Only libTick.so: no feature of this repository starts beside it.
            environment: world.environment.merging(["MICROAPP_TEST_FEATURES": ""].merging(environment) { $1 }) { $1 })
    }

    @Test(
        "an isolated app takes v2 from a channel on loopback http on a check event with its state; v3, which crashes within its canary window, is rolled back while the app answers, marked bad, and not installed again"
    )
    func updateThenCanaryRollback() async throws {
        async let first = Self.build(version: 1, greeting: "One")
        async let second = Self.build(version: 2, greeting: "Two")
        async let third = Self.build(version: 3, greeting: "Three", crashes: true)
        let (v1, v2, v3) = try await (first, second, third)
        let world = try await Self.world(running: v1)
        try await ChannelServer.serving(world.home + "/served") { server in
            let app = try Self.app(world, channel: server.baseURL + "/channel", isolation: "process", supervised: false)
            try await app.waitForFrame(route: "tick://home") { screenText($0).contains("One 0") }
            // The check at start finds nothing newer.
            try await app.waitFor("notice") { $0["code"] as? String == "update-checked" }
            try app.send([["type": "tap", "id": "bump"], ["type": "tap", "id": "bump"]])
            try await app.waitForFrame(route: "tick://home") { screenText($0).contains("One 2") }

            // v2 is published; a check event takes it: the frame shows v2 with the count kept, a notice says 1 → 2.
            try await world.publish(2, library: v2)
            try app.send([["type": "check-updates"]])
            let updated = try await app.waitFor("notice") { $0["code"] as? String == "updated" }
            #expect(
                updated["feature"] as? String == "tick" && updated["from"] as? Int == 1 && updated["to"] as? Int == 2)
            try await app.waitForFrame(route: "tick://home") {
                screenText($0).contains("Two 2") && $0["version"] as? Int == 2
            }

            // v3 goes live, then crashes within its window: v2 comes back with the state, and keeps answering.
            try await world.publish(3, library: v3)
            try app.send([["type": "check-updates"]])
            try await app.waitForFrame(route: "tick://home") {
                screenText($0).contains("Three 2") && $0["version"] as? Int == 3
            }
            try app.send([["type": "tap", "id": "crash"]])
            let rolledBack = try await app.waitFor("error") { $0["code"] as? String == "update-rolled-back" }
            #expect(rolledBack["from"] as? Int == 3 && rolledBack["to"] as? Int == 2)
            #expect((rolledBack["message"] as? String ?? "").hasPrefix("tick v3 was rolled back to v2: it crashed"))
            try app.send([["type": "tap", "id": "bump"]])
            try await app.waitForFrame(route: "tick://home") {
                screenText($0).contains("Two 3") && $0["version"] as? Int == 2
            }
            // The folder runs v2 again, pinned, and v3 is marked bad there.
            #expect(PluginVersions(plugins: world.plugins).bad("tick").mark(of: 3) != nil)
            #expect(try world.lockEntry()?.sha256 == SHA256Text.of(v2))
            #expect(world.pluginFiles()["libTick.so"] == v2)

            // The next check passes v3 over: nothing is installed, and v2 keeps running.
            let mark = app.mark
            try app.send([["type": "check-updates"]])
            let checked = try await app.waitFor("notice", since: mark) { $0["code"] as? String == "update-checked" }
            #expect((checked["detail"] as? [String])?.contains { $0.hasPrefix("tick 3") } == true)
            #expect(!app.objects(since: mark).contains { $0["code"] as? String == "updated" })
            #expect(try await app.finish() == 0)
        }
    }

    @Test(
        "an in-process v2 that crashes the app, or hangs its main thread (ended by the watchdog off that thread), within its window, or crashes within the grace after it, is taken back by the supervised restart: v1 runs again, v2 is marked bad",
        arguments: ["crash", "hang", "crash after the window"])
    func inProcessFailureTakenBackAtRestart(_ failure: String) async throws {
        let button = String(failure.prefix { $0 != " " })
        async let first = Self.build(version: 1, greeting: "One")
        async let second = Self.build(version: 2, greeting: "Two", crashes: true)
        let (v1, v2) = try await (first, second)
        let world = try await Self.world(running: v1)
        try await world.publish(2, library: v2)
        // Supervised: the crash (or the watchdog) ends the app process, and the supervisor starts it again.
        let afterWindow = failure.hasSuffix("after the window")
        let app = try Self.app(
            world, channel: world.channel, isolation: "none", environment: ["MICROAPP_FEATURE_DEADLINE_MS": "500"],
            window: afterWindow ? "1" : "30")
        // The check at start takes v2.
        try await app.waitForFrame(route: "tick://home") {
            screenText($0).contains("Two 0") && $0["version"] as? Int == 2
        }
        // Past its 1 s window, within the 30 s grace after it, a crash that ends the app still counts against v2.
        if afterWindow { try await app.waitFor("notice") { $0["code"] as? String == "canary-passed" } }
        try app.send([["type": "tap", "id": button]])
        let rolledBack = try await app.waitFor("error") { $0["code"] as? String == "update-rolled-back" }
        #expect(rolledBack["from"] as? Int == 2 && rolledBack["to"] as? Int == 1)
        #expect((rolledBack["message"] as? String ?? "").contains("the app ended (an in-process crash)"))
        if button == "hang" {
            // The supervisor traced the end to the hung library from the watchdog's report.
            let crashed = try await app.waitFor("error") { $0["code"] as? String == "plugin-crashed" }
            #expect((crashed["message"] as? String ?? "").contains("Hung: tick did not return within 0.5 seconds"))
        }
        // Not turned off: the restarted app runs v1 from the folder, which the next check leaves alone.
        try await app.waitForFrame(route: "tick://home") {
            screenText($0).contains("One 0") && $0["version"] as? Int == 1
        }
        #expect(PluginVersions(plugins: world.plugins).bad("tick").mark(of: 2) != nil)
        try await app.waitFor("notice") { $0["code"] as? String == "update-checked" }
        #expect(try await app.finish() == 0)
    }

    @Test("SIGUSR1 sent to the supervisor reaches the app, which checks its channel and takes the new version")
    func signalStartsACheck() async throws {
        async let first = Self.build(version: 1, greeting: "One")
        async let second = Self.build(version: 2, greeting: "Two")
        let (v1, v2) = try await (first, second)
        let world = try await Self.world(running: v1)
        let app = try Self.app(world, channel: world.channel, isolation: "none")
        try await app.waitForFrame(route: "tick://home") { screenText($0).contains("One 0") }
        try await app.waitFor("notice") { $0["code"] as? String == "update-checked" }
        try await world.publish(2, library: v2)
        #expect(kill(app.processID, SIGUSR1) == 0)
        try await app.waitForFrame(route: "tick://home") {
            screenText($0).contains("Two 0") && $0["version"] as? Int == 2
        }
        #expect(try await app.finish() == 0)
    }

    @Test("an isolated v2 that hangs within its window is stopped by the watchdog and rolled back to v1 with its state")
    func hangRolledBack() async throws {
        async let first = Self.build(version: 1, greeting: "One")
        async let second = Self.build(version: 2, greeting: "Two", crashes: true)
        let (v1, v2) = try await (first, second)
        let world = try await Self.world(running: v1)
        let app = try Self.app(
            world, channel: world.channel, isolation: "process", supervised: false,
            environment: ["MICROAPP_FEATURE_DEADLINE_MS": "500"])
        try await app.waitFor("notice") { $0["code"] as? String == "update-checked" }
        try app.send([["type": "tap", "id": "bump"]])
        try await app.waitForFrame(route: "tick://home") { screenText($0).contains("One 1") }
        try await world.publish(2, library: v2)
        try app.send([["type": "check-updates"]])
        try await app.waitForFrame(route: "tick://home") {
            screenText($0).contains("Two 1") && $0["version"] as? Int == 2
        }
        try app.send([["type": "tap", "id": "hang"]])
        let rolledBack = try await app.waitFor("error") { $0["code"] as? String == "update-rolled-back" }
        #expect(rolledBack["from"] as? Int == 2 && rolledBack["to"] as? Int == 1)
        #expect((rolledBack["message"] as? String ?? "").contains("it did not answer"))
        try await app.waitForFrame(route: "tick://home") {
            screenText($0).contains("One 1") && $0["version"] as? Int == 1
        }
        #expect(PluginVersions(plugins: world.plugins).bad("tick").mark(of: 2) != nil)
        // Said once, and true: no rollback-failed beside it (the lock pins v1 again before v1's child starts).
        #expect(
            !app.objects(since: 0).contains { $0["code"] as? String == "rollback-failed" }, "\(app.objects(since: 0))")
        #expect(try world.lockEntry()?.sha256 == SHA256Text.of(v1))
        #expect(try await app.finish() == 0)
    }
}
