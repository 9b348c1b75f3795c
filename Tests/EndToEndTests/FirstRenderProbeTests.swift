import Foundation
import Testing

@Suite("End to end: a plugin that traps in its first screen is refused by the probe, before the app loads it")
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

    @Test("the library is named with probe-crashed and the other features run")
    func trapInFirstRender() async throws {
        let file = try temporaryFolder("microapp-broken").appendingPathComponent("Broken.swift")
        try Self.source.write(to: file, atomically: true, encoding: .utf8)
        let plugins = try await compilePlugin(module: "Broken", sources: [file])
        let app = try AppProcess(["run", "--ui", "json", "--no-supervise", "--plugins", plugins.path])
        let error = try await app.waitFor("error", timeout: .seconds(20)) { $0["code"] as? String == "probe-crashed" }
        #expect((error["message"] as? String)?.contains("libBroken.so") == true)
        try await app.waitForFrame(route: "auth://select")
        #expect(try await app.finish() == 0)
    }
}
