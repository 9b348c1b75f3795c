import Foundation
import MicroappCore
import MicroappHost
import MicroappLoading
import MicroappPlatform
import TestScratch
import Testing

/// The test runner's folder, where `swift test` put the real plugins (`libAuth.so`…).
enum Runner {
    static let directory: String = {
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        return URL(fileURLWithPath: link ?? CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().path
    }()

    /// A new folder holding copies of the real plugins `names` (`Auth` → `libAuth.so`), each under `as` when renamed.
    static func folder(_ names: [String], renamed: [String: String] = [:]) throws -> String {
        let folder = Scratch.folder("host-pipeline").path
        for name in names {
            try FileManager.default.copyItem(
                atPath: "\(directory)/lib\(name).so", toPath: "\(folder)/lib\(renamed[name] ?? name).so")
        }
        return folder
    }

    /// Locations of an installed host whose executable sits in `folder` (no repository).
    static func installed(in folder: String) -> PluginLocations {
        PluginLocations(executableDirectory: URL(fileURLWithPath: folder), repository: nil)
    }
}

@Suite("The loading pipeline, one step at a time")
@MainActor
struct PluginSetLoaderTests {
    /// A lock check of `allowed`, each with the lock `locks` gives it (plain values: no file is read).
    static func check(_ allowed: [String], locks: [String: LibraryTrust.Lock] = [:]) -> PluginSet.LockCheck {
        var check = PluginSet.LockCheck()
        check.allowed = allowed
        check.locks = locks
        return check
    }

    static let repository = PluginLocations(
        executableDirectory: URL(fileURLWithPath: "/repo/.build/debug"), repository: URL(fileURLWithPath: "/repo"))

    @Test("placement keeps the repository's own features in this process and isolates a --plugins folder's")
    func placementFollowsOrigin() {
        let own = "/repo/.build/debug/libAuth.so"
        let outside = "/opt/extra/libProfile.so"
        var request = PluginSetRequest(locations: Self.repository, directories: [], environment: .process)
        request.isolation = .auto
        let placed = PluginSetLoader.place(Self.check([own, outside]), request)
        #expect(
            placed.decisions[own]
                == IsolationDecision(.inProcess, reason: "built in this repository's own build folder"))
        #expect(placed.decisions[outside] == IsolationDecision(.process, reason: "from the plugin folder /opt/extra"))
        #expect(placed.isolated == [outside])
        #expect(placed.inProcess.allowed == [own])
        #expect(placed.trust[own] == .own)
        #expect(placed.trust[outside] == .untrusted)
        #expect(placed.refused.isEmpty)
    }

    @Test("a trusted lock's isolation setting wins over the folder, and --isolation over both")
    func placementFollowsLockThenOption() {
        let pinned = "/opt/extra/libProfile.so"
        var request = PluginSetRequest(locations: Self.repository, directories: [], environment: .process)
        let locks: [String: LibraryTrust.Lock] = [pinned: .pinned(setting: .inProcess)]
        let byLock = PluginSetLoader.place(Self.check([pinned], locks: locks), request)
        #expect(byLock.decisions[pinned] == IsolationDecision(.inProcess, reason: "plugins.lock sets isolation none"))
        #expect(byLock.trust[pinned] == .pinned)
        #expect(byLock.isolated.isEmpty)
        request.isolation = .process
        let byOption = PluginSetLoader.place(Self.check([pinned], locks: locks), request)
        #expect(byOption.decisions[pinned] == IsolationDecision(.process, reason: "--isolation process"))
        #expect(byOption.isolated == [pinned])
    }

    @Test("a library placed in a process is refused, not started, where the kernel lacks part of the sandbox")
    func placementRefusesWithoutSandbox() throws {
        let outside = "/opt/extra/libProfile.so"
        var request = PluginSetRequest(locations: Self.repository, directories: [], environment: .process)
        request.sandbox = SandboxCheck(missing: [.landlock], allowsUnsandboxed: false)
        let refused = PluginSetLoader.place(Self.check([outside]), request)
        #expect(refused.isolated.isEmpty)
        #expect(refused.inProcess.allowed.isEmpty)
        let problem = try #require(refused.refused.first)
        #expect(problem.code == .sandboxMissing)
        #expect(problem.subject == outside)
        request.sandbox = SandboxCheck(missing: [.landlock], allowsUnsandboxed: true)
        let allowed = PluginSetLoader.place(Self.check([outside]), request)
        #expect(allowed.isolated == [outside])
        #expect(allowed.decisions[outside]?.reason.contains("unsandboxed: this kernel lacks landlock") == true)
    }

    @Test("find lists a folder's libraries and leaves out those the supervisor turned off, by full path")
    func findSkipsTurnedOffLibraries() async throws {
        let folder = try Runner.folder(["Auth", "Search"])
        var request = PluginSetRequest(
            locations: Runner.installed(in: folder), directories: [folder], environment: .process)
        let all = await PluginSetLoader.find(request)
        #expect(all.paths == ["\(folder)/libAuth.so", "\(folder)/libSearch.so"])
        request.skippedLibraries = [FileFacts.canonicalPath("\(folder)/libSearch.so")]
        let found = await PluginSetLoader.find(request)
        #expect(found.paths == ["\(folder)/libAuth.so"])
        #expect(found.leftover == nil && found.buildFailure == nil)
    }

    @Test("screen and load: real libraries load here, a file that is not one is a problem naming it, the rest load")
    func loadsRealLibrariesAndRefusesOthers() async throws {
        let folder = try Runner.folder(["Auth", "Search"])
        try Data("not a library".utf8).write(to: URL(fileURLWithPath: "\(folder)/libBroken.so"))
        var request = PluginSetRequest(
            locations: Runner.installed(in: folder), directories: [folder], environment: .process)
        request.isolation = .inProcess
        let found = await PluginSetLoader.find(request)
        let placed = PluginSetLoader.place(await PluginSetLoader.screen(found.paths, environment: .process), request)
        #expect(placed.isolated.isEmpty)
        let loaded = await PluginSetLoader.loadInProcess(placed, screening: nil)
        #expect(loaded.images.map(\.manifest.id) == ["auth", "search"])
        #expect(loaded.problems.map(\.subject) == ["\(folder)/libBroken.so"])
    }

    @Test("--only keeps the features it names, and one no library has is a usage problem listing those there are")
    func onlyKeepsNamedFeatures() async throws {
        let folder = try Runner.folder(["Auth", "Search"])
        var request = PluginSetRequest(
            locations: Runner.installed(in: folder), directories: [folder], environment: .process)
        request.isolation = .inProcess
        let placed = PluginSetLoader.place(
            await PluginSetLoader.screen(await PluginSetLoader.find(request).paths, environment: .process), request)
        let loaded = await PluginSetLoader.loadInProcess(placed, screening: nil)
        #expect(try loaded.keeping(only: ["search"]).images.map(\.manifest.id) == ["search"])
        #expect(try loaded.keeping(only: []).images.count == 2)
        #expect(
            throws: Problem(
                code: "usage", subject: "", reason: "--only nope: no loaded plugin has that id",
                fix: "use one of: auth, search")
        ) {
            try loaded.keeping(only: ["search", "nope"])
        }
    }

    @Test("resolve trusts each feature as placed and refuses a --grant of a key nobody offers")
    func resolveUsesPlacementAndChecksGrants() async throws {
        let folder = try Runner.folder(["Search"])
        var request = PluginSetRequest(
            locations: Runner.installed(in: folder), directories: [folder], environment: .process)
        request.isolation = .inProcess
        let found = await PluginSetLoader.find(request)
        let placed = PluginSetLoader.place(await PluginSetLoader.screen(found.paths, environment: .process), request)
        let loaded = await PluginSetLoader.loadInProcess(placed, screening: nil)
        let set = try PluginSetLoader.resolve(
            loaded, placed: placed, found: found, container: Container(), request: request)
        #expect(set.images.map(\.manifest.id) == ["search"])
        // Beside an installed host without a lock: not pinned, so untrusted, whatever --isolation chose.
        #expect(set.resolution.trust["search"] == .untrusted)
        #expect(set.isolation(of: "\(folder)/libSearch.so").reason == "--isolation none")
        request.grants = [GrantOption(feature: "search", key: "no.such.key")]
        #expect(throws: Problem.self) {
            try PluginSetLoader.resolve(loaded, placed: placed, found: found, container: Container(), request: request)
        }
        do {
            _ = try PluginSetLoader.resolve(
                loaded, placed: placed, found: found, container: Container(), request: request)
        } catch {
            #expect(error.reason.hasPrefix("--grant search=no.such.key: nobody offers 'no.such.key'"))
        }
    }

    @Test("the whole pipeline loads, filters and resolves against the services it is handed")
    func wholePipeline() async throws {
        let folder = try Runner.folder(["Auth", "Search", "Settings"])
        var request = PluginSetRequest(
            locations: Runner.installed(in: folder), directories: [folder], environment: .process)
        request.isolation = .inProcess
        request.only = ["auth", "settings"]
        let container = Container()
        let set = try await PluginSetLoader.load(request) { .success(container) }
        #expect(set.container === container)
        #expect(set.images.map(\.manifest.id) == ["auth", "settings"])
        #expect(set.isolated.isEmpty)
        let refused = Problem(code: "usage", subject: "", reason: "no services", fix: "open them")
        await #expect(throws: refused) {
            try await PluginSetLoader.load(request) { .failure(refused) }
        }
    }
}

@Suite("Plugin folders named on the command line")
struct PluginFolderTests {
    @Test("a folder that does not exist, or is a file, is a usage problem naming it; a folder is not", .offThePool)
    func missingFolderIsAProblem() throws {
        let folder = try Runner.folder(["Auth"])
        #expect(throws: Never.self) { try PluginLocations.checkFolders([folder], option: "--plugins") }
        do {
            try PluginLocations.checkFolders([folder, "\(folder)/nothing"], option: "--plugins")
            Issue.record("a missing folder passed")
        } catch {
            #expect(error.reason == "--plugins \(folder)/nothing: no such folder")
        }
        do {
            try PluginLocations.checkFolders(["\(folder)/libAuth.so"], option: "doctor")
            Issue.record("a file passed as a folder")
        } catch {
            #expect(error.reason == "doctor \(folder)/libAuth.so: is a file, not a folder")
        }
    }
}
