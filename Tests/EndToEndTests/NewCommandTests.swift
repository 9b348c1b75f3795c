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
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try await runMicroapp(["new", name], in: root)
        #expect(result.status == 1)
        #expect(result.err.contains(reason), "\(result.err)")
        #expect(result.err.contains("to fix:"))
        let plugins = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Plugins").path)
        #expect(plugins == ["Auth"])
    }

    /// `microapp new NAME` in a fake repository, then its library compiled with swiftc (SwiftPM builds Sources and
    /// Entry as two modules; one module is enough to load and run it here). Returns the repository, the feature's
    /// folder and the folder holding `lib<NAME>.so`.
    static func scaffold(_ name: String) async throws -> (root: URL, folder: URL, plugins: URL) {
        let root = try repository()
        let created = try await runMicroapp(["new", name], in: root)
        #expect(created.status == 0, "\(created.err)")
        #expect(created.out.contains("microapp solo \(name)"))
        let folder = root.appendingPathComponent("Plugins/\(name)")
        let sources = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("Sources").path)
        let entry = try String(contentsOf: folder.appendingPathComponent("Entry/Entry.swift"), encoding: .utf8)
        let singleModuleEntry = root.appendingPathComponent("Entry.swift")
        try entry.replacingOccurrences(of: "import \(name)\n", with: "").write(
            to: singleModuleEntry, atomically: true, encoding: .utf8)
        let plugins = try await compilePlugin(
            module: name, sources: sources.map { folder.appendingPathComponent("Sources/\($0)") } + [singleModuleEntry])
        return (root, folder, plugins)
    }

    @Test("a scaffolded feature compiles, runs alone on its mocks and draws the golden previews new wrote")
    func scaffoldRunsAlone() async throws {
        let (root, folder, plugins) = try await Self.scaffold("Profile")
        defer { for made in [root, plugins] { try? FileManager.default.removeItem(at: made) } }
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.contains(".") }
        #expect(
            Set(files) == [
                "Sources/ProfileFeature.swift", "Sources/ProfileViewModel.swift", "Sources/Mocks.swift",
                "Sources/Previews.swift", "Entry/Entry.swift", "Tests/ProfileTests.swift",
                "Previews/home.loading.txt", "Previews/home.view.txt", "Previews/home.error.txt",
            ])

        // Alone, the mocks stand in for the greeting the feature provides itself.
        let app = try AppProcess(["solo", "Profile", "--ui", "json", "--plugins", plugins.path])
        let home = try await app.waitForFrame(route: "profile://home") { screenText($0).contains("Hello, World!") }
        #expect(home["mode"] as? String == "solo")
        try app.send([["type": "input", "id": "name", "text": "Rick"], ["type": "tap", "id": "greet"]])
        try await app.waitForFrame(route: "profile://home") { screenText($0).contains("Hello, Rick!") }
        #expect(try await app.finish() == 0)

        let failing = try AppProcess(
            ["solo", "Profile", "--ui", "json", "--plugins", plugins.path, "--mock", "profile.greeting=failing"])
        try await failing.waitForFrame(route: "profile://home") { screenText($0).contains("Could not get a greeting") }
        #expect(try await failing.finish() == 0)

        let drawn = try temporaryFolder("microapp-profile-previews")
        defer { try? FileManager.default.removeItem(at: drawn) }
        let preview = try await runToEnd(
            ["preview", "Profile", "--output", drawn.path, "--plugins", plugins.path, "--no-build"])
        #expect(preview.status == 0, "\(preview.err)")
        let goldens = folder.appendingPathComponent("Previews")
        #expect(try PreviewGoldenTests.textFiles(in: drawn) == PreviewGoldenTests.textFiles(in: goldens))
    }

    @Test(
        "a scaffolded feature runs in the full app with no edits: it provides its own greeting, doctor and graph are green"
    )
    func scaffoldRunsInTheApp() async throws {
        let (root, _, plugins) = try await Self.scaffold("Profile")
        defer { for made in [root, plugins] { try? FileManager.default.removeItem(at: made) } }

        // --no-probe: no verdict for a library deleted in a minute goes into the user's probe cache.
        let app = try AppProcess(
            ["run", "--ui", "json", "--plugins", plugins.path, "--open", "profile://home", "--no-probe"])
        // The app's own greeting (Welcome), which the feature provides, not its mock's (Hello).
        let home = try await app.waitForFrame(route: "profile://home") { screenText($0).contains("Welcome, World!") }
        #expect(home["feature"] as? String == "profile")
        try app.send([["type": "input", "id": "name", "text": "Rick"], ["type": "tap", "id": "greet"]])
        try await app.waitForFrame(route: "profile://home") { screenText($0).contains("Welcome, Rick!") }
        // Signed in, its tab is in the tab bar after the demo's own, and a tap on it comes back here.
        try app.signInAsRick()
        let signedIn = try await app.waitFor("frame") { ($0["tabs"] as? [Any])?.isEmpty == false }
        let tabs = try #require(signedIn["tabs"] as? [[String: Any]])
        #expect(
            tabs.compactMap { $0["id"] as? String } == ["tab.characters", "tab.search", "tab.settings", "tab.profile"])
        try app.send([["type": "tap", "id": "tab.profile"]])
        try await app.waitForFrame(route: "profile://home")
        #expect(try await app.finish() == 0)
        #expect(!app.objects.contains { $0["type"] as? String == "error" }, "\(app.objects)")

        let doctor = try await runToEnd(
            ["doctor", AppProcess.buildDirectory.path, plugins.path, "--json", "--no-build", "--no-probe"])
        #expect(doctor.status == 0, "\(doctor.out)\n\(doctor.err)")
        let rows = doctor.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(rows.first { $0["feature"] as? String == "profile" }?["verdict"] as? String == "ok")

        let graph = try await runToEnd(
            ["graph", "--format", "json", "--plugins", plugins.path, "--no-build", "--no-probe"])
        #expect(graph.status == 0, "\(graph.out)\n\(graph.err)")
        let nodes = graph.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let profile = try #require(nodes.first { $0["feature"] as? String == "profile" })
        #expect(profile["provides"] as? [String] == ["profile.greeting"])
        let edge = try #require((profile["requirements"] as? [[String: Any]])?.first)
        #expect(edge["key"] as? String == "profile.greeting")
        #expect(edge["provider"] as? String == "profile")
        #expect(edge["status"] as? String == "ok")
    }
}
