import Foundation
import TestScratch
import Testing

/// `run` with isolated features known from their records: the first frame waits for the feature on screen only.
@Suite("End to end: the first frame waits only for the feature on screen", .serialized, .promptResumes)
struct LateStartTests {
    /// One library copied under two names (`libSlow.so`, `libBrittle.so`): each copy takes its feature's id from the
    /// file name it is mapped from and, while loading in its child (its manifest is read at load), waits for the file `go` in its
    /// folder of `switches`, and ends its child (exit 3) while the file `fail` is there: a slow load and a late load
    /// failure, each set off by the test, never by a clock.
    static func source(switches: URL) -> String {
        """
        import Foundation
        import MicroappSDK

        // Read to its end: /proc says its size is 0. Only one of the two copies is mapped in a child.
        let name = String(
            decoding: (try? FileHandle(forReadingAtPath: "/proc/self/maps")?.readToEnd()) ?? Data(), as: UTF8.self
        ).contains("/libSlow.so") ? "Slow" : "Brittle"

        public enum LateFeature: Feature {
            public static var manifest: FeatureManifest {
                let folder = "\(switches.path)/" + name.lowercased()
                if FileManager.default.fileExists(atPath: folder + "/fail") { exit(3) }
                while !FileManager.default.fileExists(atPath: folder + "/go") { usleep(5_000) }
                let id = name.lowercased()
                return FeatureManifest(id: id, version: 1, displayName: name, routes: [RouteDeclaration("\\(id)://home")])
            }
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root { LateRoot() }
        }

        @_cdecl("microapp_entry") public func entry() -> UnsafeRawPointer? { MicroappEntry.export(LateFeature.self) }

        @MainActor final class LateRoot: Root {
            func screen(at location: Location) -> Screen {
                Screen(title: name, content: [.text(Text("\\(name) is here"))])
            }
            func handle(_ action: Action, at location: Location) {}
        }
        """
    }

    /// The slow and the brittle fixtures, each in a folder of its own, and the folder of their switches; compiled once
    /// for the suite.
    static let fixtures = Task { () throws -> (slow: URL, brittle: URL, switches: URL) in
        let switches = try temporaryFolder("late-start-switches")
        let compiled = try await compilePlugin(module: "Late", source: source(switches: switches))
        var folders: [URL] = []
        for name in ["Slow", "Brittle"] {
            try FileManager.default.createDirectory(
                at: switches.appendingPathComponent(name.lowercased()), withIntermediateDirectories: true)
            let folder = try temporaryFolder("late-start-\(name.lowercased())")
            try FileManager.default.copyItem(
                at: compiled.appendingPathComponent("libLate.so"), to: folder.appendingPathComponent("lib\(name).so"))
            folders.append(folder)
        }
        return (folders[0], folders[1], switches)
    }

    /// `run` of the demo with both fixtures, every feature isolated, Auth's screen opened first.
    static func start(
        _ fixtures: (slow: URL, brittle: URL, switches: URL), environment: [String: String] = [:]
    ) throws -> AppProcess {
        try AppProcess(
            [
                "run", "--no-supervise", "--ui", "json", "--isolation", "process", "--plugins", fixtures.slow.path,
                "--plugins", fixtures.brittle.path, "--open", "auth://select",
            ], environment: environment)
    }

    /// A first start (no records of the fixtures: their children answer their handshakes before the first frame, as
    /// before) whose handshakes are recorded for the next.
    static func recordHandshakes(_ fixtures: (slow: URL, brittle: URL, switches: URL)) async throws {
        let (go, brittleGo) = (slowSwitch("go", fixtures), brittleSwitch("go", fixtures))
        try Data().write(to: go)
        try Data().write(to: brittleGo)
        let app = try start(fixtures)
        try await app.waitForFrame(route: "auth://select") { screenText($0).contains("Create account") }
        #expect(try await app.finish() == 0)
        try FileManager.default.removeItem(at: go)
    }

    static func brittleSwitch(_ name: String, _ fixtures: (slow: URL, brittle: URL, switches: URL)) -> URL {
        fixtures.switches.appendingPathComponent("brittle").appendingPathComponent(name)
    }

    static func slowSwitch(_ name: String, _ fixtures: (slow: URL, brittle: URL, switches: URL)) -> URL {
        fixtures.switches.appendingPathComponent("slow").appendingPathComponent(name)
    }

    static func index(of line: [String: Any]?, in app: AppProcess) -> Int? {
        guard let line else { return nil }
        let data = try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
        return app.objects.firstIndex {
            (try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys])) == data
        }
    }

    @Test(
        "the first frame comes while a feature is still loading; opening that feature waits for it alone, then it answers; a late load failure is reported as at start and the others run on"
    )
    func firstFrameFirst() async throws {
        let fixtures = try await Self.fixtures.value
        try await Self.recordHandshakes(fixtures)
        let failSwitch = Self.brittleSwitch("fail", fixtures)
        try Data().write(to: failSwitch)
        defer { try? FileManager.default.removeItem(at: failSwitch) }

        // Slow waits for `go`, which is written only once the first frame is here: that frame cannot have waited.
        let app = try Self.start(fixtures)
        let first = try await app.waitForFrame(route: "auth://select") { screenText($0).contains("Create account") }
        let failure = try await app.waitFor("error") { $0["code"] as? String == "load-failed" }
        #expect((failure["message"] as? String)?.contains("libBrittle.so") == true)
        #expect(Self.index(of: first, in: app)! < Self.index(of: failure, in: app)!, "the failure came after the frame")
        #expect(!app.objects.contains { $0["code"] as? String == "ready" }, "Slow is still loading")

        // Opening Slow shows its loading screen and waits for it only.
        let opened = app.mark
        try app.send([["type": "open", "url": "slow://home"]])
        try await app.waitFor("frame", since: opened) { $0["route"] as? String == "slow://home" }
        #expect(!screenText(app.lastFrame ?? [:]).contains("Slow is here"))
        try Data().write(to: Self.slowSwitch("go", fixtures))
        try await app.waitForFrame(route: "slow://home") { screenText($0).contains("Slow is here") }
        try await app.waitFor("notice") { $0["code"] as? String == "ready" }

        // The feature that failed is out of the app; the others run on.
        try app.send([["type": "open", "url": "brittle://home"]])
        try await app.waitForFrame(route: "brittle://home") { screenText($0).contains("not running") }
        try app.send([["type": "back"], ["type": "back"]])
        try await app.waitForFrame(route: "auth://select") { screenText($0).contains("Create account") }
        #expect(try await app.finish() == 0)

        // The same failure when every load is waited for (as before): the same error.
        let before = try Self.start(fixtures, environment: ["MICROAPP_START_LATE": "0"])
        let atStart = try await before.waitFor("error") { $0["code"] as? String == "load-failed" }
        #expect(atStart["message"] as? String == failure["message"] as? String)
        #expect(atStart["fix"] as? String == failure["fix"] as? String)
        try await before.waitForFrame(route: "auth://select") { screenText($0).contains("Create account") }
        #expect(try await before.finish() == 0)
    }

    @Test(
        "the demo in this process: its first frame comes before the features not on screen start, then `ready`; --strict and MICROAPP_START_LATE=0 start them all before it"
    )
    func inProcessFeaturesStartAfterTheFirstFrame() async throws {
        let demo = ["run", "--no-supervise", "--ui", "json", "--isolation", "none", "--open", "auth://select"]
        let app = try AppProcess(demo)
        let first = try await app.waitForFrame(route: "auth://select") { screenText($0).contains("Create account") }
        let ready = try await app.waitFor("notice") { $0["code"] as? String == "ready" }
        #expect(ready["message"] as? String == "every feature is ready (4 running)")
        #expect(Self.index(of: first, in: app)! < Self.index(of: ready, in: app)!, "the others started after it")
        #expect(try await app.finish() == 0)

        for (arguments, environment) in [(["--strict"], [:]), ([], ["MICROAPP_START_LATE": "0"])] {
            let before = try AppProcess(demo + arguments, environment: environment)
            try await before.waitForFrame(route: "auth://select") { screenText($0).contains("Create account") }
            #expect(try await before.finish() == 0)
            #expect(!before.objects.contains { $0["code"] as? String == "ready" }, "\(arguments) \(environment)")
        }
    }
}
