import Foundation
import MicroappCore
import MicroappIsolation
import MicroappLoading
import MicroappPlatform
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(
    "End to end: --isolation auto runs --plugins libraries in children beside the repository's own", .serialized,
    .promptResumes)
struct RunModeTests {
    /// A copy of one of the repository's features in a --plugins folder, the build folder's own turned off (by the
    /// supervisor's hidden option), so that feature runs isolated under `auto` and the others in-process. The copy
    /// is untrusted (no lock): it is granted by name what the repository's own build gets by its id and trust.
    static func moved(_ feature: String) throws -> (folder: URL, arguments: [String]) {
        let folder = try temporaryFolder("run-mode-\(feature)")
        let built = AppProcess.buildDirectory.appendingPathComponent("lib\(feature).so")
        let library = folder.appendingPathComponent("lib\(feature).so")
        try FileManager.default.copyItem(at: built, to: library)
        // Pinned by a trusted lock, as a team ships its own feature: a copy of the repository's Settings from an
        // untrusted folder would not get Settings' reserved scheme and name, nor the keys the host names it for.
        // The lock sets no isolation, so under auto the folder's library still runs in a child.
        try PluginLock(
            libraries: [(library.path, feature.lowercased(), try PluginLock.digest(of: library.path))]
        ).write(in: folder.path)
        return (folder, ["--plugins", folder.path, "--skip-library", built.resolvingSymlinksInPath().path])
    }

    @Test("the maps these tests read are whole: the stack, mapped last, is in them (Foundation's read stops at 4 KiB)")
    func mapsAreReadWhole() {
        let maps = procText("/proc/self/maps")
        #expect(maps.contains("[stack]"), "\(maps.count) bytes")
        #expect(maps.split(separator: "\n").count > 100, "a test process maps hundreds of regions")
    }

    @Test(
        "under auto a --plugins feature runs in a child and the repository's own in the app: the app maps only theirs, and session, services both ways and navigation cross between them",
        arguments: ["Search", "Settings"])
    func mixedRun(isolated feature: String) async throws {
        let (folder, arguments) = try Self.moved(feature)
        let email = "summer@example.com"
        let app = try AppProcess(
            ["run", "--no-supervise", "--no-build", "--ui", "json"] + arguments, environment: ["MICROAPP_INTERNAL": "1"]
        )
        try await app.waitForFrame(route: "auth://select") { $0["isolation"] as? String == "none" }
        // Auth (in-process) writes the session; the isolated feature sees it as a value.
        try app.signUpAsSummer(email)
        try await app.waitForFrame(route: "characters://list") { screenText($0).contains("page 1 of") }
        let maps = procText("/proc/\(app.processID)/maps")
        #expect(!maps.contains("lib\(feature).so"), "the --plugins library is not mapped in the app")
        #expect(maps.contains("libAuth.so") && maps.contains("libCharacters.so"), "the repository's own are")
        let children = descendants(of: app.processID).map {
            procText("/proc/\($0)/maps")
        }
        #expect(children.filter { $0.contains("lib\(feature).so") }.count == 1, "one child maps it")

        // Search answers from the host's service and saves the search as recent.
        try app.send([["type": "open", "url": "search://home"], ["type": "input", "id": "query", "text": "Morty"]])
        let search = try await app.waitForFrame(route: "search://home") { screenText($0).contains("Morty Smith") }
        #expect(search["isolation"] as? String == (feature == "Search" ? "process" : "none"))
        // Search's navigation into Characters crosses from its process to the app's, or the other way round.
        try app.send([["type": "select", "id": "results", "index": 0]])
        try await app.waitForFrame(route: "characters://detail/2") { screenText($0).contains("Episodes") }
        // Settings calls the recent-search summary Search provides: in-process → child, or child → in-process.
        try app.send([["type": "open", "url": "settings://home"]])
        let settings = try await app.waitForFrame(route: "settings://home") {
            screenText($0).contains("Recent searches: 1") && screenText($0).contains(email)
        }
        #expect(settings["isolation"] as? String == (feature == "Settings" ? "process" : "none"))
        try app.send([["type": "tap", "id": "sign-out"]])
        try await app.waitForFrame(route: "auth://select") { $0["account"] is NSNull }
        #expect(try await app.finish() == 0)
        // doctor, which loads the folder alone, says where and why; it started a child instead of mapping it.
        let doctor = try await runToEnd(["doctor", folder.path, "--no-build", "--json"])
        let row = try #require(PolicyEndToEndTests.rows(doctor.out).first, "\(doctor.out) \(doctor.err)")
        #expect(row["verdict"] as? String == "ok" && row["isolation"] as? String == "process", "\(row)")
        #expect((row["isolationReason"] as? String)?.contains("from the plugin folder \(folder.path)") == true)
    }

    @Test(
        "solo --isolation process runs the feature alone in a child on its mocks: its mock session signs it in, --open is opened once, --mock picks the variant there, and the app maps no feature library"
    )
    func soloInAChild() async throws {
        let app = try AppProcess([
            "solo", "Characters", "--no-build", "--ui", "json", "--isolation", "process", "--open",
            "characters://detail/2", "--mock", "characters.page=failing",
        ])
        let detail = try await app.waitForFrame(route: "characters://detail/2") { screenText($0).contains("Episodes") }
        #expect(detail["isolation"] as? String == "process" && detail["mode"] as? String == "solo")
        #expect(detail["account"] as? String == "rick@example.com", "the session of the feature's mocks")
        #expect(detail["depth"] as? Int == 1, "the list below it, as in-process: the route opened once")
        let maps = procText("/proc/\(app.processID)/maps")
        #expect(!maps.contains("libCharacters.so"))
        let children = descendants(of: app.processID).map {
            procText("/proc/\($0)/maps")
        }
        #expect(children.filter { $0.contains("libCharacters.so") }.count == 1)
        // The failing variant of the list's mock, chosen on the command line, answers in the child.
        try app.send([["type": "back"], ["type": "open", "url": "characters://list"]])
        let list = try await app.waitForFrame(route: "characters://list") {
            screenText($0).contains("Could not load characters")
        }
        #expect((list["mocks"] as? [String])?.contains("characters.page=failing") == true)
        #expect(try await app.finish() == 0)
    }

    @Test(
        "solo of a --plugins library runs it in a child under auto; one whose requirement has no mock is refused, naming the key"
    )
    func soloUnderAuto() async throws {
        // The library in a --plugins folder wins over the build folder's.
        let (folder, _) = try Self.moved("Settings")
        let app = try AppProcess(["solo", "Settings", "--no-build", "--ui", "json", "--plugins", folder.path])
        let frame = try await app.waitForFrame(route: "settings://home") { screenText($0).contains("Signed in as") }
        #expect(frame["isolation"] as? String == "process")
        #expect(try await app.finish() == 0)
        let unmocked = try await compilePlugin(module: "Unmocked", source: SoloTests.unmockedSource)
        let refused = try await runToEnd(["solo", "Unmocked", "--no-build", "--ui", "text", "--plugins", unmocked.path])
        #expect(refused.status == 2)
        #expect(refused.err.contains("unmocked.clock") && refused.err.contains("ships no mock"), "\(refused.err)")
        #expect(refused.err.contains("mocks.service(") && refused.err.contains("UnmockedFeature"))
    }

    @Test(
        "where the kernel lacks a sandbox mechanism an isolated feature is refused naming it and --allow-unsandboxed; with the flag it runs, said unsandboxed"
    )
    func missingSandboxMechanism() async throws {
        let (folder, arguments) = try Self.moved("Settings")
        // Test-only: adds Landlock to what this kernel lacks (it has it), so the refusal can be seen here.
        let environment = ["MICROAPP_INTERNAL": "1", "MICROAPP_TEST_SANDBOX_MISSING": "landlock"]
        let refused = try AppProcess(
            ["run", "--no-supervise", "--no-build", "--ui", "json"] + arguments, environment: environment)
        let error = try await refused.waitFor("error") { $0["code"] as? String == "sandbox-missing" }
        let message = (error["message"] as? String) ?? ""
        #expect(message.contains("libSettings.so") && message.contains("landlock"), "\(message)")
        #expect((error["fix"] as? String)?.contains("--allow-unsandboxed") == true, "\(error)")
        try await refused.waitForFrame(route: "auth://select")
        #expect(try await refused.finish() == 0, "the other features run")

        let refusedByDoctor = try await runToEnd(
            ["doctor", folder.path, "--no-build", "--json"], environment: environment)
        #expect(refusedByDoctor.status == 2)
        #expect(PolicyEndToEndTests.rows(refusedByDoctor.out).first?["code"] as? String == "sandbox-missing")
        let doctor = try await runToEnd(
            ["doctor", folder.path, "--no-build", "--json", "--allow-unsandboxed"], environment: environment)
        let row = PolicyEndToEndTests.rows(doctor.out).first
        #expect(
            (row?["isolationReason"] as? String)?.contains("unsandboxed: this kernel lacks landlock") == true,
            "\(doctor.out) \(doctor.err)")
        let allowed = try AppProcess(
            ["run", "--no-supervise", "--no-build", "--ui", "json", "--allow-unsandboxed", "--open", "settings://home"]
                + arguments, environment: environment)
        try allowed.signUpAsSummer("summer@example.com")
        let frame = try await allowed.waitForFrame(route: "settings://home")
        #expect(frame["isolation"] as? String == "process")
        let children = descendants(of: allowed.processID).map {
            Data(procText("/proc/\($0)/environ").utf8)
        }
        #expect(
            children.contains { String(decoding: $0, as: UTF8.self).contains("MICROAPP_ALLOW_UNSANDBOXED=1") },
            "the children are told to skip what is missing")
        #expect(try await allowed.finish() == 0)
    }

    @Test(
        "graph and keys load a --plugins feature in a child too: where the sandbox is missing, run with --allow-unsandboxed"
    )
    func inspectCommandsAllowUnsandboxed() async throws {
        // Refused without the flag: a load in the environment that says so, in process (StatedEnvironmentTests).
        let source = try temporaryFolder("run-mode-unmocked").appendingPathComponent("Unmocked.swift")
        try SoloTests.unmockedSource.write(to: source, atomically: true, encoding: .utf8)
        let plugins = try await compilePlugin(module: "Unmocked", sources: [source])
        let environment = ["MICROAPP_INTERNAL": "1", "MICROAPP_TEST_SANDBOX_MISSING": "landlock"]
        for command in [["graph", "--format", "json"], ["keys", "--json"]] {
            let base = command + ["--no-build", "--plugins", plugins.path]
            let allowed = try await runToEnd(base + ["--allow-unsandboxed"], environment: environment)
            #expect(!allowed.err.contains("--allow-unsandboxed"), "\(command[0]): \(allowed.err)")
            // The graph shows the feature; keys lists offers, and it offers none.
            #expect(command[0] == "keys" || allowed.out.contains("unmocked"), "the graph shows it: \(allowed.out)")
        }
    }

    @Test(
        "the lock holds on the isolated path: a library it does not pin is refused with lock-mismatch, one it pins runs, an entry saying none runs in-process"
    )
    func lockOnIsolatedPath() async throws {
        let (folder, arguments) = try Self.moved("Settings")
        let environment = ["MICROAPP_INTERNAL": "1"]
        let locked = try await runToEnd(["lock", folder.path, "--no-build"])
        #expect(locked.status == 0, "\(locked.err)")
        // Other bytes under the locked name: refused before a child maps them.
        let library = folder.appendingPathComponent("libSettings.so")
        try FileManager.default.removeItem(at: library)
        try FileManager.default.copyItem(
            at: AppProcess.buildDirectory.appendingPathComponent("libSearch.so"), to: library)
        let mismatch = try await runToEnd(
            ["run", "--no-supervise", "--no-build", "--ui", "json", "--isolation", "process", "--strict"] + arguments,
            environment: environment)
        #expect(mismatch.status == 2)
        #expect(mismatch.err.contains("libSettings.so") && mismatch.err.contains("SHA-256"), "\(mismatch.err)")

        // The locked bytes again, the entry set to run in-process.
        try FileManager.default.removeItem(at: library)
        try FileManager.default.copyItem(
            at: AppProcess.buildDirectory.appendingPathComponent("libSettings.so"), to: library)
        #expect(try await runToEnd(["lock", folder.path, "--no-build", "--isolation", "none"]).status == 0)
        let app = try AppProcess(
            ["run", "--no-supervise", "--no-build", "--ui", "json", "--open", "settings://home"] + arguments,
            environment: environment)
        try app.signUpAsSummer("summer@example.com")
        let frame = try await app.waitForFrame(route: "settings://home")
        #expect(frame["isolation"] as? String == "none")
        let maps = procText("/proc/\(app.processID)/maps")
        let mapped = maps.split(separator: "\n").filter { $0.contains("lib") && $0.hasSuffix(".so") }.map {
            $0.split(separator: " ").last ?? ""
        }
        // The private copy its lock check read (what is checked is what runs: in the library store, named by its
        // digest), never the file in the folder.
        #expect(
            mapped.contains {
                $0.hasSuffix("-" + library.lastPathComponent)
                    && ($0.contains("/microapp-loaded-") || $0.contains("/microapp/libraries/"))
            },
            "the pinned library's checked copy is mapped in the app: \(Set(mapped))")
        #expect(!mapped.contains { $0 == library.path }, "\(Set(mapped))")
        #expect(try await app.finish() == 0)
    }

    @Test(
        "an isolated start checks the lock on the private copy the child maps: bytes replaced after the run's own lock check never start"
    )
    @MainActor
    func lockCheckedOnTheCopy() async throws {
        let (folder, _) = try Self.moved("Settings")
        #expect(try await runToEnd(["lock", folder.path, "--no-build"]).status == 0)
        // The library changes after the lock was checked: the launch (which copies it) is the last word.
        let library = folder.appendingPathComponent("libSettings.so")
        try FileManager.default.removeItem(at: library)
        try FileManager.default.copyItem(
            at: AppProcess.buildDirectory.appendingPathComponent("libSearch.so"), to: library)
        let launched = await IsolatedPlugin.launch(
            library.path, executable: AppProcess.executable, log: IsolationLog(environment: .process))
        guard case .failure(let problem) = launched else {
            if case .success(let plugin) = launched { plugin.stop() }
            Issue.record("bytes the lock does not pin started in a child")
            return
        }
        #expect(problem.code == .lockMismatch, "\(problem)")
        #expect(problem.reason.contains("SHA-256"), "\(problem)")
    }
}

/// The processes under `ancestor`, at any depth: its children, the zygote's forks, and below each isolated feature's
/// outer process its namespace's first process and the feature's own.
func descendants(of ancestor: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    var parents: [Int32: Int32] = [:]
    for pid in entries.compactMap(Int32.init) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { continue }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        if fields.count > 2, let parent = Int32(fields[1]) { parents[pid] = parent }
    }
    func descends(_ pid: Int32) -> Bool {
        var next = parents[pid]
        while let parent = next, parent > 1 {
            if parent == ancestor { return true }
            next = parents[parent]
        }
        return false
    }
    return parents.keys.filter(descends)
}
