import Foundation
import MicroappDigest
import MicroappPlatform
import MicroappRelease
import MicroappSDK
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A person's host following a channel a publisher fills: the release files, trust list and plugin folder in one
/// scratch folder, releases signed and published through the platform's own publishing.
struct LiveChannel {
    let home: String
    let environment: [String: String]
    let channel: String
    let plugins: String
    private let key: Ed25519.PrivateKey
    private let trust: TrustList

    /// A channel folder, a plugin folder holding `library` as its first version, and a trusted publisher's key.
    init(running library: URL) throws {
        home = try temporaryFolder("live-update").path
        environment = [
            "XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state", "XDG_CACHE_HOME": home + "/cache",
            // Only libTally.so: no feature of this repository starts beside it.
            "MICROAPP_TEST_FEATURES": "",
        ]
        channel = home + "/channel"
        plugins = home + "/plugins"
        key = try #require(Ed25519.PrivateKey.generate())
        trust = TrustList(keys: ["acme": KeyText.text(of: key.publicKey)])
        let store = ReleaseStore(folders: ReleaseFolders(environment: environment, home: home))
        #expect(store.save(trust) == nil)
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: library, to: URL(fileURLWithPath: plugins + "/" + library.lastPathComponent))
    }

    /// Signs `library` as release `version` of `feature` and publishes it into the channel.
    func publish(_ library: URL, feature: String, version: Int) throws {
        let bytes = try Data(contentsOf: library)
        let manifest = Data(#"{"id":"\#(feature)","version":\#(version)}"#.utf8)
        let release = SignedRelease.make(
            library: bytes, libraryName: library.lastPathComponent, manifest: manifest, feature: feature,
            version: version, sdk: .current, key: key, now: Date())
        let folder = home + "/releases/\(feature)-\(version)"
        #expect(ChannelFolder.writeRelease(release, library: bytes, manifest: manifest, to: folder) == nil)
        _ = try ChannelFolder.publish(folder, to: channel, key: key, trust: trust, now: Date()).get()
    }
}

/// `run --channel`: the running app takes releases from a channel, and a bad one rolls itself back.
@Suite("End to end: a running app updates from a channel", .serialized)
struct LiveUpdateEndToEndTests {
    /// A counter feature at `version` whose screen says `greeting` and the count; with `crashes`, it offers Crash,
    /// which aborts its process.
    private static func source(version: Int, greeting: String, crashes: Bool = false) -> String {
        """
        import Foundation
        import MicroappSDK

        public enum TallyFeature: Feature {
            public static var manifest: FeatureManifest {
                FeatureManifest(
                    id: "tally", version: \(version), displayName: "Tally", routes: [RouteDeclaration("tally://home")])
            }
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root { TallyRoot() }
        }

        @MainActor final class TallyRoot: Root {
            var count = 0
            func screen(at location: Location) -> Screen {
                Screen(title: "Tally", content: [
                    .text(Text("\(greeting) \\(count)")), .button(Button(id: "bump", title: "Bump")),
                ] + (\(crashes) ? [.button(Button(id: "crash", title: "Crash"))] : []))
            }
            func handle(_ action: Action, at location: Location) {
                if case .tap(id: "bump") = action { count += 1 }
                if case .tap(id: "crash") = action { abort() }
            }
            func snapshot() -> Data? { Data("\\(count)".utf8) }
            func restore(from snapshot: Data) throws { count = Int(String(decoding: snapshot, as: UTF8.self)) ?? 0 }
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(TallyFeature.self)
        }
        """
    }

    private static func build(version: Int, greeting: String, crashes: Bool = false) async throws -> URL {
        try await compilePlugin(
            module: "Tally", source: source(version: version, greeting: greeting, crashes: crashes)
        ).appendingPathComponent("libTally.so")
    }

    @Test(
        "an isolated app takes v2 from a channel folder on a check event with its state; v3, which crashes within its canary window, is rolled back while the app answers, marked bad, and not installed again"
    )
    func updateThenCanaryRollback() async throws {
        async let first = Self.build(version: 1, greeting: "One")
        async let second = Self.build(version: 2, greeting: "Two")
        async let third = Self.build(version: 3, greeting: "Three", crashes: true)
        let (v1, v2, v3) = try await (first, second, third)
        let world = try LiveChannel(running: v1)
        try world.publish(v1, feature: "tally", version: 1)
        let app = try AppProcess(
            [
                "run", "--no-supervise", "--isolation", "process", "--plugins", world.plugins, "--only", "tally",
                "--ui", "json", "--channel", world.channel, "--check-every", "60",
            ], environment: world.environment)
        try await app.waitForFrame(route: "tally://home") { screenText($0).contains("One 0") }
        // The check at start finds nothing newer.
        try await app.waitFor("notice") { $0["code"] as? String == "update-checked" }
        try app.send([["type": "tap", "id": "bump"], ["type": "tap", "id": "bump"]])
        try await app.waitForFrame(route: "tally://home") { screenText($0).contains("One 2") }

        // v2 is published; a check event takes it: the frame shows v2 with the count kept, a notice says 1 → 2.
        try world.publish(v2, feature: "tally", version: 2)
        try app.send([["type": "check-updates"]])
        let updated = try await app.waitFor("notice") { $0["code"] as? String == "updated" }
        #expect(updated["feature"] as? String == "tally" && updated["from"] as? Int == 1 && updated["to"] as? Int == 2)
        try await app.waitForFrame(route: "tally://home") {
            screenText($0).contains("Two 2") && $0["version"] as? Int == 2
        }

        // v3 goes live, then crashes within its window: v2 comes back with the state, and keeps answering.
        try world.publish(v3, feature: "tally", version: 3)
        try app.send([["type": "check-updates"]])
        try await app.waitForFrame(route: "tally://home") {
            screenText($0).contains("Three 2") && $0["version"] as? Int == 3
        }
        try app.send([["type": "tap", "id": "crash"]])
        let rolledBack = try await app.waitFor("error") { $0["code"] as? String == "update-rolled-back" }
        #expect(rolledBack["from"] as? Int == 3 && rolledBack["to"] as? Int == 2)
        #expect((rolledBack["message"] as? String ?? "").hasPrefix("tally v3 was rolled back to v2: it crashed"))
        try app.send([["type": "tap", "id": "bump"]])
        try await app.waitForFrame(route: "tally://home") {
            screenText($0).contains("Two 3") && $0["version"] as? Int == 2
        }
        // The folder runs v2 again, and v3 is marked bad there.
        let versions = PluginVersions(plugins: world.plugins)
        #expect(versions.bad("tally").mark(of: 3) != nil)
        #expect(
            try PluginLock.digest(of: world.plugins + "/libTally.so") == (try PluginLock.digest(of: v2.path)))

        // The next check passes v3 over: nothing is installed, and v2 keeps running.
        let mark = app.mark
        try app.send([["type": "check-updates"]])
        let checked = try await app.waitFor("notice", since: mark) { $0["code"] as? String == "update-checked" }
        #expect((checked["detail"] as? [String])?.contains { $0.hasPrefix("tally 3") } == true)
        #expect(!app.objects(since: mark).contains { $0["code"] as? String == "updated" })
        #expect(try await app.finish() == 0)
    }

    @Test(
        "an in-process v2 that crashes the app within its window is taken back by the supervised restart: v1 runs again, v2 is marked bad"
    )
    func inProcessCrashTakenBackAtRestart() async throws {
        async let first = Self.build(version: 1, greeting: "One")
        async let second = Self.build(version: 2, greeting: "Two", crashes: true)
        let (v1, v2) = try await (first, second)
        let world = try LiveChannel(running: v1)
        try world.publish(v1, feature: "tally", version: 1)
        try world.publish(v2, feature: "tally", version: 2)
        // Supervised (the default): the crash ends the app process, and the supervisor starts it again.
        let app = try AppProcess(
            [
                "run", "--isolation", "none", "--plugins", world.plugins, "--only", "tally", "--ui", "json",
                "--channel", world.channel, "--check-every", "60",
            ], environment: world.environment)
        // The check at start takes v2.
        try await app.waitForFrame(route: "tally://home") {
            screenText($0).contains("Two 0") && $0["version"] as? Int == 2
        }
        try app.send([["type": "tap", "id": "crash"]])
        let rolledBack = try await app.waitFor("error") { $0["code"] as? String == "update-rolled-back" }
        #expect(rolledBack["from"] as? Int == 2 && rolledBack["to"] as? Int == 1)
        #expect((rolledBack["message"] as? String ?? "").contains("the app ended (an in-process crash)"))
        // Not turned off: the restarted app runs v1 from the folder, which the next check leaves alone.
        try await app.waitForFrame(route: "tally://home") {
            screenText($0).contains("One 0") && $0["version"] as? Int == 1
        }
        #expect(PluginVersions(plugins: world.plugins).bad("tally").mark(of: 2) != nil)
        try await app.waitFor("notice") { $0["code"] as? String == "update-checked" }
        #expect(try await app.finish() == 0)
    }

    @Test("SIGUSR1 sent to the supervisor reaches the app, which checks its channel and takes the new version")
    func signalStartsACheck() async throws {
        async let first = Self.build(version: 1, greeting: "One")
        async let second = Self.build(version: 2, greeting: "Two")
        let (v1, v2) = try await (first, second)
        let world = try LiveChannel(running: v1)
        try world.publish(v1, feature: "tally", version: 1)
        let app = try AppProcess(
            [
                "run", "--isolation", "none", "--plugins", world.plugins, "--only", "tally", "--ui", "json",
                "--channel", world.channel, "--check-every", "60",
            ], environment: world.environment)
        try await app.waitForFrame(route: "tally://home") { screenText($0).contains("One 0") }
        try await app.waitFor("notice") { $0["code"] as? String == "update-checked" }
        try world.publish(v2, feature: "tally", version: 2)
        #expect(kill(app.processID, SIGUSR1) == 0)
        try await app.waitForFrame(route: "tally://home") {
            screenText($0).contains("Two 0") && $0["version"] as? Int == 2
        }
        #expect(try await app.finish() == 0)
    }
}
