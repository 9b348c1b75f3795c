import Foundation
import TestScratch
import Testing

/// The rules around features, with the real binary: capabilities under `--allow`/`--strict`, where each feature
/// runs (`--isolation`), and the session's named owner.
@Suite("Capabilities, isolation decisions and the session's owner, end to end", .promptResumes)
struct PolicyEndToEndTests {
    /// A feature source with `id`, the given manifest arguments after its routes, and one text screen.
    static func source(_ type: String, id: String, manifest extra: String) -> String {
        """
        import MicroappSDK

        public enum \(type): Feature {
            public static let manifest = FeatureManifest(
                id: "\(id)", version: 1, displayName: "\(type)", routes: [RouteDeclaration("\(id)://home")]\(extra))
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root { Page() }
        }

        @MainActor final class Page: Root {
            func screen(at location: Location) -> Screen { Screen(title: "\(type)", content: [.text(Text("hello"))]) }
            func handle(_ action: Action, at location: Location) {}
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(\(type).self)
        }
        """
    }

    /// A folder holding `libWeather.so`, a feature that declares the `network` capability.
    static func weather() async throws -> URL {
        try await compilePlugin(
            module: "Weather", source: source("Weather", id: "weather", manifest: ", capabilities: [.network]"))
    }

    static func rows(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test("doctor shows a feature's capabilities and isolation; --strict refuses network unless --allow network")
    func doctorCapabilities() async throws {
        let folder = try await Self.weather()
        let lenient = try await runToEnd(["doctor", folder.path, "--no-build", "--json"])
        #expect(lenient.status == 0, "\(lenient.out) \(lenient.err)")
        let row = try #require(Self.rows(lenient.out).first { $0["feature"] as? String == "weather" })
        #expect(row["capabilities"] as? [String] == ["network"])
        #expect(row["isolation"] as? String == "process")
        #expect((row["isolationReason"] as? String)?.contains("from the plugin folder \(folder.path)") == true)
        #expect(lenient.err.contains("capability-not-allowed") || lenient.err.contains("'network'"))

        let strict = try await runToEnd(["doctor", folder.path, "--no-build", "--json", "--strict"])
        #expect(strict.status == 2)
        let refused = try #require(Self.rows(strict.out).first { $0["feature"] as? String == "weather" })
        #expect(refused["verdict"] as? String == "refused")
        #expect(refused["code"] as? String == "capability-not-allowed")
        #expect((refused["fix"] as? String)?.contains("--allow network") == true)

        let allowed = try await runToEnd(["doctor", folder.path, "--no-build", "--strict", "--allow", "network"])
        #expect(allowed.status == 0, "\(allowed.out) \(allowed.err)")
    }

    @Test("run --strict stops with exit 2 naming a feature that declares network without --allow network")
    func runStrict() async throws {
        let folder = try await Self.weather()
        let run = try await runToEnd(["run", "--no-build", "--strict", "--plugins", folder.path, "--ui", "json"])
        #expect(run.status == 2)
        #expect(run.err.contains("weather") && run.err.contains("--allow network"), "\(run.err)")
    }

    @Test("frames say where the feature on screen runs: a --plugins feature in a child under auto, Auth in-process")
    func framesCarryIsolation() async throws {
        let folder = try await Self.weather()
        let app = try AppProcess(["run", "--ui", "json", "--plugins", folder.path, "--open", "weather://home"])
        let frame = try await app.waitForFrame(route: "weather://home")
        #expect(frame["isolation"] as? String == "process", "it runs in a child, and the frame says so")
        app.send(#"{"type":"open","url":"auth://select"}"#)
        let auth = try await app.waitForFrame(route: "auth://select")
        #expect(auth["isolation"] as? String == "none")
        app.send(#"{"type":"quit"}"#)
        #expect(try await app.finish() == 0)
    }

    @Test("run --isolation takes only auto, process or none; routes shows the repository's own features in-process")
    func isolationOption() async throws {
        let bad = try await runToEnd(["run", "--no-build", "--isolation", "sometimes", "--ui", "json"])
        #expect(bad.status == 1 && bad.err.contains("--isolation sometimes") && bad.err.contains("process"))
        let routes = try await runToEnd(["routes", "--no-build", "--json"])
        #expect(
            !Self.rows(routes.out).isEmpty && Self.rows(routes.out).allSatisfy { $0["isolation"] as? String == "none" },
            "the repository's own")
    }

    @Test("a library claiming the session read-write beside Auth is refused naming Auth its owner, and Auth runs")
    func strayOwnerRefused() async throws {
        let folder = try await compilePlugin(
            module: "Mallory",
            source: Self.source(
                "Mallory", id: "mallory",
                manifest: ", requirements: [DependencyKey<Session?>.session(access: .readWrite).requirement]"))
        let app = try AppProcess(["run", "--ui", "json", "--plugins", folder.path])
        let error = try await app.waitFor("error") { $0["code"] as? String == "second-owner" }
        #expect(
            (error["message"] as? String)?.contains("mallory claims session read-write, but the host names auth")
                == true)
        let frame = try await app.waitForFrame(route: "auth://select")
        #expect(frame["feature"] as? String == "auth")
        app.send(#"{"type":"quit"}"#)
        #expect(try await app.finish() == 0)
    }
}

extension PolicyEndToEndTests {
    @Test("keys lists the capabilities the host can grant, with the features that declare them")
    func keysListCapabilities() async throws {
        let folder = try await Self.weather()
        let keys = try await runToEnd(["keys", "--no-build", "--json", "--plugins", folder.path])
        #expect(keys.status == 0, "\(keys.err)")
        let network = try #require(Self.rows(keys.out).first { $0["key"] as? String == "network" })
        #expect(network["kind"] as? String == "capability" && network["provider"] as? String == "host")
        #expect(network["usedBy"] as? [String] == ["weather"])
        #expect(Self.rows(keys.out).contains { $0["key"] as? String == "files:scratch" })
    }
}

extension PolicyEndToEndTests {
    @Test("microapp lock DIR --isolation none pins the folder's libraries to run in-process; locking again keeps it")
    func lockSetsIsolation() async throws {
        let folder = try await Self.weather()
        let locked = try await runToEnd(["lock", folder.path, "--no-build", "--isolation", "none"])
        #expect(locked.status == 0, "\(locked.err)")
        for round in 1...2 {
            let doctor = try await runToEnd(["doctor", folder.path, "--no-build", "--json"])
            let row = try #require(Self.rows(doctor.out).first { $0["feature"] as? String == "weather" })
            #expect(row["isolation"] as? String == "none", "round \(round)")
            #expect(row["isolationReason"] as? String == "plugins.lock sets isolation none")
            #expect(try await runToEnd(["lock", folder.path, "--no-build"]).status == 0)
        }
        let bad = try await runToEnd(["lock", folder.path, "--no-build", "--isolation", "auto"])
        #expect(bad.status == 1 && bad.err.contains("--isolation process or --isolation none"))
    }
}

extension PolicyEndToEndTests {
    @Test("under --isolation process, each frame says the feature on screen runs isolated")
    func framesUnderProcess() async throws {
        let app = try AppProcess(["run", "--no-supervise", "--ui", "json", "--isolation", "process"])
        let frame = try await app.waitForFrame(route: "auth://select")
        #expect(frame["isolation"] as? String == "process")
        app.send(#"{"type":"quit"}"#)
        #expect(try await app.finish() == 0)
    }
}
