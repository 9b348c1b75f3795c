import Foundation
import Testing

/// `microapp run --watch` as a process: a new build dropped into a watched plugin folder is swapped in.
@Suite("Hot swap end to end")
struct HotSwapEndToEndTests {
    /// A one-screen feature whose greeting is `greeting`.
    private static func source(greeting: String) -> String {
        """
        import Foundation
        import MicroappSDK

        public enum DropFeature: Feature {
            public static var manifest: FeatureManifest {
                FeatureManifest(id: "drop", version: 1, displayName: "Drop", routes: [RouteDeclaration("drop://home")])
            }
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root { DropRoot() }
        }

        @MainActor final class DropRoot: Root {
            var name = ""
            func screen(at location: Location) -> Screen {
                Screen(title: "Drop", content: [
                    .text(Text("\(greeting) \\(name)")), .field(TextField(id: "name", label: "Name", text: name)),
                ])
            }
            func handle(_ action: Action, at location: Location) {
                if case .input(_, let text) = action { name = text }
            }
            func snapshot() -> Data? { Data(name.utf8) }
            func restore(from snapshot: Data) throws { name = String(decoding: snapshot, as: UTF8.self) }
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? { MicroappEntry.export(DropFeature.self) }
        """
    }

    private static func build(greeting: String) async throws -> URL {
        let folder = try temporaryFolder("drop-source")
        let file = folder.appendingPathComponent("Drop.swift")
        try source(greeting: greeting).write(to: file, atomically: true, encoding: .utf8)
        return try await compilePlugin(module: "Drop", sources: [file]).appendingPathComponent("libDrop.so")
    }

    @Test("a new library in a watched folder is swapped in with its state, and scripts see it")
    func dropInNewBuild() async throws {
        let first = try await Self.build(greeting: "Hello")
        let second = try await Self.build(greeting: "Howdy")
        let plugins = try temporaryFolder("drop-plugins")
        let installed = plugins.appendingPathComponent("libDrop.so")
        try FileManager.default.copyItem(at: first, to: installed)
        let app = try AppProcess(["run", "--watch", "--plugins", plugins.path, "--only", "drop", "--ui", "json"])
        try await app.waitForFrame(route: "drop://home") { screenText($0).contains("Hello") }
        try app.send([["type": "input", "id": "name", "text": "Rick"]])
        try await app.waitForFrame(route: "drop://home") { screenText($0).contains("Hello Rick") }
        // Like a linker: a new file under a temporary name, renamed over the old one (a new inode).
        let staged = plugins.appendingPathComponent("libDrop.so.partial")
        try FileManager.default.copyItem(at: second, to: staged)
        _ = rename(staged.path, installed.path)
        let swapped = try await app.waitFor("notice") { $0["code"] as? String == "swapped" }
        #expect(swapped["feature"] as? String == "drop")
        #expect(swapped["from"] as? Int == 1 && swapped["to"] as? Int == 2)
        let frame = try await app.waitForFrame(route: "drop://home") { screenText($0).contains("Howdy Rick") }
        #expect(frame["version"] as? Int == 2)
        try app.send([["type": "rollback", "feature": "drop"]])
        try await app.waitFor("notice") { $0["code"] as? String == "rolled-back" }
        try await app.waitForFrame(route: "drop://home") {
            screenText($0).contains("Hello Rick") && $0["version"] as? Int == 1
        }
        #expect(try await app.finish() == 0)
    }
}
