import Foundation
import TestScratch
import Testing

@Suite("End to end: microapp new", .serialized, .promptResumes)
struct NewCommandTests {
    /// A name nobody gives a feature of their own: the scaffold these tests make must not meet one a person added.
    static let name = "Gazorpazorp"

    /// The Package.swift of a repository whose feature list names `features`, laid out as this repository's.
    static func manifest(listing features: [String]) -> String {
        """
        // swift-tools-version: 6.0
        import PackageDescription

        let features: [String] = [
            // microapp: features begin
        \(features.map { "    \"\($0)\",\n" }.joined())    // microapp: features end
        ]

        let package = Package(name: "Microapps")

        """
    }

    /// A folder that looks like the repository to `microapp new`: a Package.swift listing Auth, and Plugins/Auth.
    static func repository() throws -> URL {
        let root = try temporaryFolder("microapp-new")
        try manifest(listing: ["Auth"]).write(
            to: root.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        for part in ["Sources", "Entry", "Tests"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("Plugins/Auth/\(part)"), withIntermediateDirectories: true)
        }
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

    @Test("new adds the feature's line to Package.swift's list with its folder; remove takes both away again")
    func newThenRemoveEditTheList() async throws {
        let root = try Self.repository()
        let manifest = root.appendingPathComponent("Package.swift")
        let before = try String(contentsOf: manifest, encoding: .utf8)

        let created = try await runMicroapp(["new", "Bird"], in: root)
        #expect(created.status == 0, "\(created.err)")
        #expect(
            try String(contentsOf: manifest, encoding: .utf8) == Self.manifest(listing: ["Auth", "Bird"]),
            "the line goes in its sorted place, between the markers")
        #expect(!created.out.contains("manifest-cache"), "no cache to bypass: \(created.out)")
        #expect(created.out.contains("swift test --filter BirdTests"))
        #expect(created.out.contains("microapp remove Bird"))
        // The "Next:" rows: what each command does starts in one column.
        let rows = created.out.split(separator: "\n").drop { !$0.hasPrefix("Next") }.dropFirst()
        let columns = Set(
            rows.map { row in
                let gap = row.dropFirst(2).range(of: "   ").map { row[$0.upperBound...] } ?? ""
                return row.count - gap.drop { $0 == " " }.count
            })
        #expect(rows.count == 5 && columns.count == 1, "\(rows)")

        // What building it leaves in .build: SwiftPM's module folders and the watch loop's shadow build.
        let leftovers = [".build/debug/Bird.build", ".build/debug/BirdTests.build", ".build/microapp-watch/debug/Bird"]
        for leftover in leftovers {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(leftover + "/objects"), withIntermediateDirectories: true)
        }

        // The folder holds work: remove says what it would delete, and deletes nothing without --yes.
        let refused = try await runMicroapp(["remove", "Bird"], in: root)
        #expect(refused.status == 1)
        #expect(refused.err.contains("Plugins/Bird (9 files)"), "\(refused.err)")
        #expect(refused.err.contains("nothing was removed"))
        #expect(refused.err.contains("to fix: run `\(AppProcess.typed) remove Bird --yes`"), "\(refused.err)")
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("Plugins/Bird/Sources").path))
        #expect(try String(contentsOf: manifest, encoding: .utf8) == Self.manifest(listing: ["Auth", "Bird"]))

        let removed = try await runMicroapp(["remove", "bird", "--yes"], in: root)
        #expect(removed.status == 0, "\(removed.err)")
        #expect(removed.out.contains("Removed Bird"))
        #expect(removed.out.contains("its build folders (.build/debug/Bird.build, .build/debug/BirdTests.build"))
        for leftover in leftovers {
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent(leftover).path), "\(leftover)")
        }
        #expect(try String(contentsOf: manifest, encoding: .utf8) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Plugins").path) == ["Auth"]
        )
    }

    @Test("remove of a name neither listed nor in Plugins/ is refused with the features there are, and nothing changes")
    func removeUnknown() async throws {
        let root = try Self.repository()
        let result = try await runMicroapp(["remove", "Profile", "--yes"], in: root)
        #expect(result.status == 1)
        #expect(result.err.contains("no feature is called 'Profile'"), "\(result.err)")
        #expect(result.err.contains("to fix: use one of: Auth"))
        #expect(
            try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
                == Self.manifest(listing: ["Auth"]))
    }

    @Test("a listed feature whose folder is gone: new refuses its name, remove takes the line out without --yes")
    func listedWithoutFolder() async throws {
        let root = try Self.repository()
        let manifest = root.appendingPathComponent("Package.swift")
        try Self.manifest(listing: ["Auth", "Gone"]).write(to: manifest, atomically: true, encoding: .utf8)

        let new = try await runMicroapp(["new", "Gone"], in: root)
        #expect(new.status == 1)
        #expect(
            new.err.contains("Package.swift already lists the feature Gone, but Plugins/Gone is missing"), "\(new.err)")
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("Plugins/Gone").path))

        let removed = try await runMicroapp(["remove", "Gone"], in: root)
        #expect(removed.status == 0, "\(removed.err)")
        #expect(try String(contentsOf: manifest, encoding: .utf8) == Self.manifest(listing: ["Auth"]))
    }

    @Test("in a Package.swift without a feature list, new says how to declare one and writes nothing")
    func noList() async throws {
        let root = try Self.repository()
        try Data().write(to: root.appendingPathComponent("Package.swift"))
        let result = try await runMicroapp(["new", "Bird"], in: root)
        #expect(result.status == 1)
        #expect(result.err.contains("declares no feature list"), "\(result.err)")
        #expect(result.err.contains("// microapp: features begin"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Plugins").path) == ["Auth"]
        )
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

    /// The scaffold of `name` (`Gazorpazorp`), made once per test process for every test that only reads it (its
    /// folders go with the scratch folder when the process ends).
    static func sharedScaffold() async throws -> Scaffolded {
        try await SharedBuilds.shared.value(of: "new-\(name)") {
            let (root, folder, plugins) = try await scaffold(name)
            return Scaffolded(root: root, folder: folder, plugins: plugins)
        }
    }

    /// A scaffolded feature: its repository, its folder and the folder of its library.
    struct Scaffolded: Sendable {
        let root: URL
        let folder: URL
        let plugins: URL
    }

    @Test("a scaffolded feature compiles, runs alone on its mocks and draws the golden previews new wrote")
    func scaffoldRunsAlone() async throws {
        let scaffold = try await Self.sharedScaffold()
        let (folder, plugins) = (scaffold.folder, scaffold.plugins)
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.contains(".") }
        #expect(
            Set(files) == [
                "Sources/GazorpazorpFeature.swift", "Sources/GazorpazorpViewModel.swift", "Sources/Mocks.swift",
                "Sources/Previews.swift", "Entry/Entry.swift", "Tests/GazorpazorpTests.swift",
                "Previews/home.loading.txt", "Previews/home.view.txt", "Previews/home.error.txt",
            ])

        // Alone, the mocks stand in for the greeting the feature provides itself.
        let app = try AppProcess(["solo", Self.name, "--ui", "json", "--plugins", plugins.path])
        let home = try await app.waitForFrame(route: "gazorpazorp://home") { screenText($0).contains("Hello, World!") }
        #expect(home["mode"] as? String == "solo")
        try app.send([["type": "input", "id": "name", "text": "Rick"], ["type": "tap", "id": "greet"]])
        try await app.waitForFrame(route: "gazorpazorp://home") { screenText($0).contains("Hello, Rick!") }
        #expect(try await app.finish() == 0)

        let failing = try AppProcess(
            ["solo", Self.name, "--ui", "json", "--plugins", plugins.path, "--mock", "gazorpazorp.greeting=failing"])
        try await failing.waitForFrame(route: "gazorpazorp://home") {
            screenText($0).contains("Could not get a greeting")
        }
        #expect(try await failing.finish() == 0)

        let drawn = try temporaryFolder("microapp-scaffold-previews")
        defer { try? FileManager.default.removeItem(at: drawn) }
        let preview = try await runToEnd(
            ["preview", Self.name, "--output", drawn.path, "--plugins", plugins.path, "--no-build"])
        #expect(preview.status == 0, "\(preview.err)")
        let goldens = folder.appendingPathComponent("Previews")
        #expect(try PreviewGoldenTests.textFiles(in: drawn) == PreviewGoldenTests.textFiles(in: goldens))
    }

    @Test("a scaffolded feature keeps the name typed across a hot swap, and the notice says its state was kept")
    func scaffoldKeepsItsStateAcrossASwap() async throws {
        let scaffold = try await Self.sharedScaffold()
        // The next version: the live greeting edited, as a person's save would be (the Entry is the one-module copy).
        let edited = try temporaryFolder("microapp-scaffold-v2")
        var sources = [scaffold.root.appendingPathComponent("Entry.swift")]
        let folder = scaffold.folder.appendingPathComponent("Sources")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let copy = edited.appendingPathComponent(file)
            try text.replacingOccurrences(of: #"Welcome, \("#, with: #"Howdy, \("#).write(
                to: copy, atomically: true, encoding: .utf8)
            sources.append(copy)
        }
        let second = try await compilePlugin(module: Self.name, sources: sources)
        let library = "lib\(Self.name).so"
        let plugins = try temporaryFolder("microapp-scaffold-watch")
        let installed = plugins.appendingPathComponent(library)
        try FileManager.default.copyItem(at: scaffold.plugins.appendingPathComponent(library), to: installed)

        let app = try AppProcess([
            "run", "--watch", "--isolation", "none", "--plugins", plugins.path, "--only", "gazorpazorp", "--open",
            "gazorpazorp://home", "--ui", "json",
        ])
        try await app.waitForFrame(route: "gazorpazorp://home") { screenText($0).contains("Welcome, World!") }
        try app.send([["type": "input", "id": "name", "text": "Morty"], ["type": "tap", "id": "greet"]])
        try await app.waitForFrame(route: "gazorpazorp://home") { screenText($0).contains("Welcome, Morty!") }
        try await app.waitFor("notice") { $0["code"] as? String == "watching" }
        try HotSwapEndToEndTests.install(second.appendingPathComponent(library), at: installed)
        let swapped = try await app.waitFor("notice") { $0["code"] as? String == "swapped" }
        #expect(swapped["state"] as? String == "kept", "\(swapped)")
        #expect((swapped["message"] as? String)?.hasSuffix("(state kept)") == true, "\(swapped)")
        // The new version greets the kept name with its own words.
        try await app.waitForFrame(route: "gazorpazorp://home") {
            screenText($0).contains("Howdy, Morty!") && $0["version"] as? Int == 2
        }
        #expect(try await app.finish() == 0)
    }

    @Test(
        "a scaffolded feature runs in the full app with no edits: it provides its own greeting, doctor and graph are green"
    )
    func scaffoldRunsInTheApp() async throws {
        let plugins = try await Self.sharedScaffold().plugins

        // --no-probe: no verdict for a library deleted in a minute goes into the user's probe cache.
        let app = try AppProcess(
            ["run", "--ui", "json", "--plugins", plugins.path, "--open", "gazorpazorp://home", "--no-probe"])
        // The app's own greeting (Welcome), which the feature provides, not its mock's (Hello).
        let home = try await app.waitForFrame(route: "gazorpazorp://home") {
            screenText($0).contains("Welcome, World!")
        }
        #expect(home["feature"] as? String == "gazorpazorp")
        try app.send([["type": "input", "id": "name", "text": "Rick"], ["type": "tap", "id": "greet"]])
        try await app.waitForFrame(route: "gazorpazorp://home") { screenText($0).contains("Welcome, Rick!") }
        // Signed in, its tab is in the tab bar after the demo's own, and a tap on it comes back here.
        try app.signInAsRick()
        let signedIn = try await app.waitFor("frame") { ($0["tabs"] as? [Any])?.isEmpty == false }
        let tabs = try #require(signedIn["tabs"] as? [[String: Any]])
        #expect(
            tabs.compactMap { $0["id"] as? String } == [
                "tab.characters", "tab.search", "tab.settings", "tab.gazorpazorp",
            ])
        try app.send([["type": "tap", "id": "tab.gazorpazorp"]])
        try await app.waitForFrame(route: "gazorpazorp://home")
        #expect(try await app.finish() == 0)
        // No error of its own (a machine's namespaces-missing warning, or MICROAPP_NAMESPACES=0, is not the feature's).
        #expect(
            !app.objects.contains { $0["type"] as? String == "error" && $0["code"] as? String != "namespaces-missing" },
            "\(app.objects)")

        let doctor = try await runToEnd(
            ["doctor", AppProcess.buildDirectory.path, plugins.path, "--json", "--no-build", "--no-probe"])
        #expect(doctor.status == 0, "\(doctor.out)\n\(doctor.err)")
        let rows = doctor.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(rows.first { $0["feature"] as? String == "gazorpazorp" }?["verdict"] as? String == "ok")

        let graph = try await runToEnd(
            ["graph", "--format", "json", "--plugins", plugins.path, "--no-build", "--no-probe"])
        #expect(graph.status == 0, "\(graph.out)\n\(graph.err)")
        let nodes = graph.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let feature = try #require(nodes.first { $0["feature"] as? String == "gazorpazorp" })
        #expect(feature["provides"] as? [String] == ["gazorpazorp.greeting"])
        let edge = try #require((feature["requirements"] as? [[String: Any]])?.first)
        #expect(edge["key"] as? String == "gazorpazorp.greeting")
        #expect(edge["provider"] as? String == "gazorpazorp")
        #expect(edge["status"] as? String == "ok")
    }
}
