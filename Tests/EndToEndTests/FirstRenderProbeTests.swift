import Foundation
import TestScratch
import Testing

@Suite(
    "End to end: a plugin that traps in its first screen is refused by the probe, before the app loads it",
    .promptResumes)
struct FirstRenderProbeTests {
    static let source = """
        import MicroappSDK

        public enum BrokenFeature: Feature {
            public static let manifest = FeatureManifest(
                id: "broken", version: 1, displayName: "Broken", routes: [RouteDeclaration("broken://home/{id}")],
                hasMocks: true)
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root { BrokenRoot() }
            @MainActor public static func mocks() -> Mocks { Mocks() }
        }

        @MainActor final class BrokenRoot: Root {
            func screen(at location: Location) -> Screen { fatalError("the first screen of \\(location.url) traps") }
            func handle(_ action: Action, at location: Location) {}
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(BrokenFeature.self)
        }
        """

    @Test("probe says what it checked: a feature with mocks had its first screens drawn, one without mocks did not")
    func probeSaysWhatItChecked() async throws {
        // Crashy declares no mocks.
        let mockless = try await compilePlugin(module: "Crashy", source: SupervisorTests.crashySource)
            .appendingPathComponent("libCrashy.so").path
        let auth = AppProcess.buildDirectory.appendingPathComponent("libAuth.so").path

        let drawn = try await probeJSON(auth)
        #expect(drawn["verdict"] as? String == "ok")
        #expect(drawn["checked"] as? [String] == ["loaded", "registered", "manifest", "first screens"])
        #expect(drawn["notChecked"] as? [String] == [])

        let undrawn = try await probeJSON(mockless)
        #expect(undrawn["verdict"] as? String == "ok")
        #expect(undrawn["checked"] as? [String] == ["loaded", "registered", "manifest"])
        #expect(undrawn["notChecked"] as? [String] == ["first screens (no mocks)"])

        let text = try await runToEnd(["probe", mockless])
        #expect(text.status == 0)
        #expect(text.out.contains("  checked      loaded, registered, manifest\n"), "\(text.out)")
        #expect(text.out.contains("  not checked  first screens (no mocks)"), "\(text.out)")
    }

    /// `microapp probe --json FILE` as an object.
    private func probeJSON(_ library: String) async throws -> [String: Any] {
        let result = try await runToEnd(["probe", library, "--json"])
        #expect(result.status == 0, "\(result.err)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
    }

    @Test("the library is named with probe-crashed and the other features run")
    func trapInFirstRender() async throws {
        let file = try temporaryFolder("microapp-broken").appendingPathComponent("Broken.swift")
        try Self.source.write(to: file, atomically: true, encoding: .utf8)
        let plugins = try await compilePlugin(module: "Broken", sources: [file])
        // The probe guards in-process loading (`--isolation none`); an isolated library never runs here at all.
        let app = try AppProcess([
            "run", "--ui", "json", "--no-supervise", "--isolation", "none", "--plugins", plugins.path,
        ])
        let error = try await app.waitFor("error", timeout: .seconds(20)) { $0["code"] as? String == "probe-crashed" }
        #expect((error["message"] as? String)?.contains("libBroken.so") == true)
        try await app.waitForFrame(route: "auth://select")
        #expect(try await app.finish() == 0)
    }
}
