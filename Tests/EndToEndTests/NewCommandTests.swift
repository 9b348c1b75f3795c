import Foundation
import Testing

@Suite("End to end: microapp new", .serialized)
struct NewCommandTests {
    /// A folder that looks like the repository to `microapp new`: Package.swift and a Plugins/ folder with Auth.
    static func repository() throws -> URL {
        let root = try temporaryFolder("microapp-new")
        try Data().write(to: root.appendingPathComponent("Package.swift"))
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("Plugins/Auth/Sources"), withIntermediateDirectories: true)
        return root
    }

    @Test(
        "names that are taken or not Swift identifiers are refused with the reason, and nothing is written",
        arguments: [
            ("Auth", "Plugins/Auth already exists"),
            ("auth", "'auth' is taken"),
            ("AuthTests", "'AuthTests' is taken"),
            ("Foundation", "'Foundation' is taken"),
            ("9Lives", "starts with a digit"),
            ("My-Feature", "it contains '-'"),
            ("Café", "it contains 'é'"),
            ("class", "is a Swift keyword"),
            ("Self", "is a Swift keyword"),
        ])
    func refusals(name: String, reason: String) async throws {
        let root = try Self.repository()
        let result = try await runMicroapp(["new", name], in: root)
        #expect(result.status == 1)
        #expect(result.err.contains(reason), "\(result.err)")
        #expect(result.err.contains("to fix:"))
        let plugins = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Plugins").path)
        #expect(plugins == ["Auth"])
    }

    @Test("a scaffolded feature compiles, runs alone on its mocks and draws the golden previews new wrote")
    func scaffoldRunsAlone() async throws {
        let root = try Self.repository()
        let created = try await runMicroapp(["new", "Profile"], in: root)
        #expect(created.status == 0, "\(created.err)")
        #expect(created.out.contains("microapp solo Profile"))
        let folder = root.appendingPathComponent("Plugins/Profile")
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.contains(".") }
        #expect(
            Set(files) == [
                "Sources/ProfileFeature.swift", "Sources/ProfileViewModel.swift", "Sources/Mocks.swift",
                "Sources/Previews.swift", "Entry/Entry.swift", "Tests/ProfileTests.swift",
                "Previews/home.loading.txt", "Previews/home.view.txt", "Previews/home.error.txt",
            ])
        let sources = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("Sources").path)
        // SwiftPM builds Sources and Entry as two modules; one module is enough to load and run it here.
        let entry = try String(contentsOf: folder.appendingPathComponent("Entry/Entry.swift"), encoding: .utf8)
        let singleModuleEntry = try temporaryFolder("microapp-entry").appendingPathComponent("Entry.swift")
        try entry.replacingOccurrences(of: "import Profile\n", with: "").write(
            to: singleModuleEntry, atomically: true, encoding: .utf8)
        let plugins = try await compilePlugin(
            module: "Profile",
            sources: sources.map { folder.appendingPathComponent("Sources/\($0)") } + [singleModuleEntry])

        let app = try AppProcess(["solo", "Profile", "--ui", "json", "--plugins", plugins.path])
        let home = try await app.waitForFrame(route: "profile://home") { screenText($0).contains("Hello, World!") }
        #expect(home["mode"] as? String == "solo")
        try app.send([["type": "input", "id": "name", "text": "Rick"], ["type": "tap", "id": "greet"]])
        try await app.waitForFrame(route: "profile://home") { screenText($0).contains("Hello, Rick!") }
        #expect(try await app.finish() == 0)

        let drawn = try temporaryFolder("microapp-profile-previews")
        let preview = try await runToEnd(
            ["preview", "Profile", "--output", drawn.path, "--plugins", plugins.path, "--no-build"])
        #expect(preview.status == 0, "\(preview.err)")
        let goldens = folder.appendingPathComponent("Previews")
        #expect(try PreviewGoldenTests.textFiles(in: drawn) == PreviewGoldenTests.textFiles(in: goldens))
    }
}
