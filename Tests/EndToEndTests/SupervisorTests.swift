import Foundation
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("End to end: a plugin that crashes the running app is turned off and the app comes back", .promptResumes)
struct SupervisorTests {
    /// A feature whose screen traps after its button is pressed: a crash at run time, past every load-time check.
    static let crashySource = """
        import MicroappSDK

        public enum CrashyFeature: Feature {
            public static let manifest = FeatureManifest(
                id: "crashy", version: 1, displayName: "Crashy", routes: [RouteDeclaration("crashy://home")])
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root { CrashyRoot() }
        }

        @MainActor final class CrashyRoot: Root {
            var armed = false
            func screen(at location: Location) -> Screen {
                if armed { fatalError("Crashy was asked to crash") }
                return Screen(title: "Crashy", content: [.button(Button(id: "boom", title: "Crash the app"))])
            }
            func handle(_ action: Action, at location: Location) { if action == .tap(id: "boom") { armed = true } }
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(CrashyFeature.self)
        }
        """

    @Test("the supervisor keeps its files in a new folder only its user can enter (mkdtemp, 0700), gone at the end")
    func supervisorFolderIsPrivateAndFresh() async throws {
        // A temporary folder of this run's own: the supervisor's folder is the one thing that appears in it.
        let temporary = try temporaryFolder("microapp-supervisor-tmp")
        let app = try AppProcess(["run", "--ui", "json"], environment: ["TMPDIR": temporary.path])
        try await app.waitForFrame(route: "auth://select")
        let made = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        #expect(made.count == 1, "\(made)")
        let name = try #require(made.first)
        let folder = temporary.appendingPathComponent(name).path
        #expect(FileManager.default.fileExists(atPath: folder + "/state.json"), "the app's state is recorded there")
        #expect(name.hasPrefix("microapp-run-") && name != "microapp-run-\(app.processID)", "a name no one can plant")
        var status = stat()
        #expect(lstat(folder, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR)
        #expect(status.st_mode & 0o777 == 0o700)
        #expect(try await app.finish() == 0)
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test(
        "kill or a closed terminal (SIGTERM, SIGHUP) to the supervisor ends the app through it: exit 128 + signal, no crash report, its folder removed",
        arguments: [SIGTERM, SIGHUP])
    func terminationIsPassedOnAndCleanedUp(signal: Int32) async throws {
        let temporary = try temporaryFolder("microapp-supervisor-tmp")
        let app = try AppProcess(["run", "--ui", "json"], environment: ["TMPDIR": temporary.path])
        try await app.waitForFrame(route: "auth://select")
        let children = try String(
            contentsOfFile: "/proc/\(app.processID)/task/\(app.processID)/children", encoding: .utf8)
        let appProcess = try #require(children.split(separator: " ").first.flatMap { Int32($0) }, "\(children)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).count == 1)
        #expect(kill(app.processID, signal) == 0)
        // The signal must end the run, not the end of input `finish` sends: wait until the supervisor reaped the
        // app process (a generous limit; a loaded machine may run the supervisor late).
        let deadline = ContinuousClock.now + .seconds(60)
        while kill(appProcess, 0) == 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let status = try await app.finish()
        #expect(status == 128 + signal, "\(status) \(app.errorText)")
        #expect(!app.errorText.contains("crashed"), "\(app.errorText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
        // Reaped by the supervisor before it ended: the app process is gone, not left running without it.
        #expect(kill(appProcess, 0) == -1 && errno == ESRCH)
    }

    /// Also under the file name of a real feature: a crash is traced by full path, so a `libAuth.so` in a --plugins
    /// folder is turned off alone and the real Auth (the build folder's `libAuth.so`) keeps running.
    @Test(
        "the app restarts without the crashed plugin, names its file, and keeps running the others",
        arguments: ["libCrashy.so", "libAuth.so"])
    func crashedPluginIsTurnedOff(fileName: String) async throws {
        let source = try temporaryFolder("microapp-crashy").appendingPathComponent("Crashy.swift")
        try Self.crashySource.write(to: source, atomically: true, encoding: .utf8)
        let plugins = try await compilePlugin(module: "Crashy", sources: [source])
        let library = plugins.appendingPathComponent(fileName)
        if fileName != "libCrashy.so" {
            try FileManager.default.moveItem(at: plugins.appendingPathComponent("libCrashy.so"), to: library)
        }
        // In-process (`--isolation none`): the crash takes the app process, and the supervisor traces it.
        let app = try AppProcess([
            "run", "--ui", "json", "--isolation", "none", "--plugins", plugins.path, "--open", "crashy://home",
        ])
        try await app.waitForFrame(route: "crashy://home") { screenText($0).contains("Crash the app") }
        try app.send([["type": "tap", "id": "boom"]])
        let banner = try await app.waitFor("error", timeout: .seconds(20)) { $0["code"] as? String == "plugin-crashed" }
        let message = try #require(banner["message"] as? String)
        #expect(message.hasPrefix("crashy crashed"), "\(message)")
        #expect(message.contains("turned off"), "\(message)")
        #expect(message.contains(library.resolvingSymlinksInPath().path), "names the file that crashed: \(message)")
        // The crashed feature's screen is gone: the app is home (sign-in first, so Auth runs), with the real features.
        try await app.waitForFrame(route: "auth://select", timeout: .seconds(20))
        try app.send([["type": "open", "url": "crashy://home"]])
        try await app.waitFor("error") { ($0["message"] as? String)?.contains("crashy://") == true }
        #expect(try await app.finish() == 0)
    }

    @Test("the app process ends when its supervisor is killed with SIGKILL")
    func appEndsWithItsSupervisor() async throws {
        let app = try AppProcess(["run", "--ui", "json"])
        try await app.waitForFrame(route: "auth://select")
        let child = try #require(childProcess(of: app.processID))
        // SIGKILL: the supervisor cannot tell its child anything. The app's input stays open (the test holds it),
        // so only the kernel's word that its parent ended can stop it.
        #expect(kill(app.processID, SIGKILL) == 0)
        let deadline = ContinuousClock.now + .seconds(20)
        while Self.isRunning(child) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!Self.isRunning(child), "the app process \(child) outlived its supervisor")
        _ = try? await app.finish()
    }

    /// True while `pid` exists and has not ended (a zombie has ended; only its new parent has yet to reap it).
    private static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.range(of: ") ", options: .backwards)
        else { return false }
        let state = stat[end.upperBound...].first
        return state != "Z" && state != "X"
    }
}
