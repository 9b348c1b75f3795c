import Foundation
import TestScratch
import Testing

/// `microapp run --watch` as a process: a new build dropped into a watched plugin folder is swapped in.
@Suite("Hot swap end to end", .promptResumes)
struct HotSwapEndToEndTests {
    /// A one-screen feature whose greeting is `greeting` (whose restore refuses every snapshot when `refusing`).
    private static func source(greeting: String, refusing: Bool = false) -> String {
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
            func restore(from snapshot: Data) throws {
                if \(refusing) { throw CocoaError(.coderReadCorrupt) }
                name = String(decoding: snapshot, as: UTF8.self)
            }
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? { MicroappEntry.export(DropFeature.self) }
        """
    }

    static func build(greeting: String, refusing: Bool = false) async throws -> URL {
        let folder = try temporaryFolder("drop-source")
        let file = folder.appendingPathComponent("Drop.swift")
        try source(greeting: greeting, refusing: refusing).write(to: file, atomically: true, encoding: .utf8)
        return try await compilePlugin(module: "Drop", sources: [file]).appendingPathComponent("libDrop.so")
    }

    /// A "Hello" build installed as `libDrop.so` in a new plugin folder named after `folder`, and a "Howdy" build
    /// beside it to swap in.
    static func helloInstalledHowdyBuilt(in folder: String) async throws -> (
        second: URL, plugins: URL, installed: URL
    ) {
        let first = try await build(greeting: "Hello")
        let second = try await build(greeting: "Howdy")
        let plugins = try temporaryFolder(folder)
        let installed = plugins.appendingPathComponent("libDrop.so")
        try FileManager.default.copyItem(at: first, to: installed)
        return (second, plugins, installed)
    }

    @Test("a new library in a watched folder is swapped in with its state, and scripts see it")
    func dropInNewBuild() async throws {
        let (second, plugins, installed) = try await Self.helloInstalledHowdyBuilt(in: "drop-plugins")
        let elsewhere = try temporaryFolder("drop-elsewhere")
        let app = try AppProcess([
            "run", "--watch", "--isolation", "none", "--plugins", plugins.path, "--plugins", elsewhere.path, "--only",
            "drop", "--ui", "json",
        ])
        try await app.waitForFrame(route: "drop://home") { screenText($0).contains("Hello") }
        try app.send([["type": "input", "id": "name", "text": "Rick"]])
        try await app.waitForFrame(route: "drop://home") { screenText($0).contains("Hello Rick") }
        let watching = try await app.waitFor("notice") { $0["code"] as? String == "watching" }
        #expect((watching["detail"] as? [String])?.contains(plugins.path) == true)
        // A library of the same name in another watched folder is not a build of the running one. Libraries are
        // judged one at a time, by path ("drop-elsewhere" before "drop-plugins"), so the swap of the real build
        // below comes after this one was judged: one swap in all says it was not swapped in.
        try FileManager.default.copyItem(at: second, to: elsewhere.appendingPathComponent("libDrop.so"))
        // Like a linker: a new file under a temporary name, renamed over the old one (a new inode).
        let staged = plugins.appendingPathComponent("libDrop.so.partial")
        try FileManager.default.copyItem(at: second, to: staged)
        _ = rename(staged.path, installed.path)
        let swapped = try await app.waitFor("notice") { $0["code"] as? String == "swapped" }
        #expect(swapped["feature"] as? String == "drop")
        #expect(swapped["from"] as? Int == 1 && swapped["to"] as? Int == 2)
        #expect(swapped["state"] as? String == "kept")
        #expect((swapped["message"] as? String)?.hasSuffix("(state kept)") == true)
        let frame = try await app.waitForFrame(route: "drop://home") { screenText($0).contains("Howdy Rick") }
        #expect(frame["version"] as? Int == 2)
        try app.send([["type": "rollback", "feature": "drop"]])
        try await app.waitFor("notice") { $0["code"] as? String == "rolled-back" }
        try await app.waitForFrame(route: "drop://home") {
            screenText($0).contains("Hello Rick") && $0["version"] as? Int == 1
        }
        #expect(try await app.finish() == 0)
        #expect(
            app.objects.filter { $0["code"] as? String == "swapped" }.count == 1,
            "a library from another folder was swapped in")
    }

    @Test(
        "an isolated feature's new build runs in a new child with its state and the old child ends; a build that cannot take the state leaves it running; rollback starts the previous version again"
    )
    func isolatedSwap() async throws {
        let first = try await Self.build(greeting: "Hello")
        let second = try await Self.build(greeting: "Howdy")
        let refusing = try await Self.build(greeting: "Broken", refusing: true)
        let (app, installed) = try Self.watchIsolated(first, feature: "drop")
        try await app.waitForFrame(route: "drop://home") { screenText($0).contains("Hello") }
        try app.send([["type": "input", "id": "name", "text": "Rick"]])
        try await app.waitForFrame(route: "drop://home") { screenText($0).contains("Hello Rick") }
        try await app.waitFor("notice") { $0["code"] as? String == "watching" }
        let before = Set(Self.featureHosts(of: app.processID))
        #expect(before.count == 1, "one child runs the feature")

        try Self.install(refusing, at: installed)
        let refused = try await app.waitFor("error") { $0["code"] as? String == "start-failed" }
        #expect((refused["message"] as? String)?.contains("could not take the state") == true)
        #expect((refused["message"] as? String)?.contains("v1 keeps running") == true)
        try app.send([["type": "input", "id": "name", "text": "Rick!"]])
        try await app.waitForFrame(route: "drop://home") {
            screenText($0).contains("Hello Rick!") && $0["version"] as? Int == 1
        }
        #expect(Set(Self.featureHosts(of: app.processID)) == before, "the refused build's child ended, v1's stays")

        try Self.install(second, at: installed)
        let swapped = try await app.waitFor("notice") { $0["code"] as? String == "swapped" }
        #expect(swapped["from"] as? Int == 1 && swapped["to"] as? Int == 2)
        #expect((swapped["milliseconds"] as? Int).map { $0 >= 0 } == true)
        try await app.waitForFrame(route: "drop://home") {
            screenText($0).contains("Howdy Rick!") && $0["version"] as? Int == 2
        }
        let afterSwap = try await Self.waitForOneFeatureHost(of: app.processID)
        #expect(afterSwap.isDisjoint(with: before), "the old child ended and a new one runs v2")
        let maps = procText("/proc/\(app.processID)/maps")
        #expect(!maps.contains("libDrop"), "the host never maps the feature's library")

        try app.send([["type": "rollback", "feature": "drop"]])
        try await app.waitFor("notice") { $0["code"] as? String == "rolled-back" }
        // v1's original file was replaced twice: the rollback's child starts from v1's own copy.
        try await app.waitForFrame(route: "drop://home") {
            screenText($0).contains("Hello Rick!") && $0["version"] as? Int == 1
        }
        let afterRollback = try await Self.waitForOneFeatureHost(of: app.processID)
        #expect(afterRollback.isDisjoint(with: afterSwap), "v2's child ended and a new one runs v1")
        #expect(try await app.finish() == 0)
    }

    /// `run --watch --isolation process --ui json` of `library` alone (feature `feature`), from a plugin folder of its
    /// own; answers the app and the library's path there, where a new build goes.
    static func watchIsolated(_ library: URL, feature: String) throws -> (app: AppProcess, installed: URL) {
        let plugins = try temporaryFolder("\(feature)-isolated")
        let installed = plugins.appendingPathComponent(library.lastPathComponent)
        try FileManager.default.copyItem(at: library, to: installed)
        let app = try AppProcess([
            "run", "--watch", "--no-supervise", "--isolation", "process", "--plugins", plugins.path, "--only", feature,
            "--ui", "json",
        ])
        return (app, installed)
    }

    /// Puts `build` at `installed` as a linker does: a new file under a temporary name, renamed over the old one.
    static func install(_ build: URL, at installed: URL) throws {
        let staged = installed.deletingLastPathComponent().appendingPathComponent(
            installed.lastPathComponent + ".partial")
        try? FileManager.default.removeItem(at: staged)
        try FileManager.default.copyItem(at: build, to: staged)
        _ = rename(staged.path, installed.path)
    }

    /// The feature's running children under the app `pid`: forks of its zygote (the app's grandchildren), or
    /// children of the app started with `feature-host --library` when there is no zygote.
    private static func featureHosts(of pid: Int32) -> [Int32] {
        children(of: pid).filter(isRunning).flatMap { child in
            commandLine(of: child).contains("--library") ? [child] : children(of: child).filter(isRunning)
        }
    }

    /// Waits (10 s at most) until exactly one feature-host child runs, and returns it.
    static func waitForOneFeatureHost(of pid: Int32) async throws -> Set<Int32> {
        let deadline = ContinuousClock.now + .seconds(10)
        var hosts = Set(featureHosts(of: pid))
        while hosts.count != 1 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            hosts = Set(featureHosts(of: pid))
        }
        #expect(hosts.count == 1, "one child runs the feature, not \(hosts.count)")
        return hosts
    }

    @Test("the probe process kept waiting for the next swap ends with the app, even when the app is killed")
    func waitingProbeEndsWithTheApp() async throws {
        let plugins = try temporaryFolder("drop-waiting")
        try FileManager.default.copyItem(
            at: try await Self.build(greeting: "Hello"), to: plugins.appendingPathComponent("libDrop.so"))
        let app = try AppProcess([
            "run", "--watch", "--no-supervise", "--isolation", "none", "--plugins", plugins.path, "--only", "drop",
            "--ui", "json",
        ])
        try await app.waitForFrame(route: "drop://home")
        var waiting: [Int32] = []
        let deadline = ContinuousClock.now + .seconds(10)
        while waiting.isEmpty && ContinuousClock.now < deadline {
            waiting = Self.children(of: app.processID).filter { Self.commandLine(of: $0).contains("--standby") }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(waiting.count == 1, "one probe process waits for the next swap")
        // SIGKILL: no chance to clean up. The waiting probe reads end of file on its input and ends by itself.
        #expect(kill(app.processID, SIGKILL) == 0)
        let gone = ContinuousClock.now + .seconds(10)
        while waiting.contains(where: Self.isRunning) && ContinuousClock.now < gone {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!waiting.contains(where: Self.isRunning), "the waiting probe outlived the app")
    }

    /// The processes whose parent is `pid`, from /proc.
    private static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { parentAndState(of: $0)?.parent == pid }
    }

    private static func commandLine(of pid: Int32) -> String {
        let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()
        return String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
    }

    /// True while `pid` exists and is not a zombie (a zombie has ended; only its parent has yet to reap it).
    private static func isRunning(_ pid: Int32) -> Bool {
        guard let state = parentAndState(of: pid)?.state else { return false }
        return state != "Z" && state != "X"
    }

    /// The parent pid and state letter from `/proc/PID/stat` (`pid (comm) S ppid …`; comm may hold spaces).
    private static func parentAndState(of pid: Int32) -> (parent: Int32, state: String)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 1, let parent = Int32(fields[1]) else { return nil }
        return (parent, String(fields[0]))
    }
}
