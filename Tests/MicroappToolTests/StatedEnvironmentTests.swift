import Foundation
import MicroappCore
import MicroappHost
import MicroappPlatform
import MicroappSDK
import Testing

@testable import MicroappTool

#if canImport(Glibc)
    import Glibc
#endif

/// A command runs in the environment its composition root gives it, not in the test process's: what needed a fresh
/// `microapp` process with variables set for it (the kernel said to lack Landlock) is a value here.
@Suite("Commands read the environment they are given")
@MainActor
struct StatedEnvironmentTests {
    @Test(
        "under env -i (no HOME, no XDG variable) the home is the password entry's, so an installed app's data goes to its .local/share; an absolute HOME and XDG_DATA_HOME win, a relative HOME counts as none"
    )
    func homeWithoutVariables() throws {
        let entry = try #require(getpwuid(geteuid()))
        let passwordHome = String(cString: try #require(entry.pointee.pw_dir))
        let bare = HostEnvironment.process(variables: [:])
        #expect(bare.home == passwordHome)
        #expect(bare.folder(.data) == passwordHome + "/.local/share")
        #expect(bare.folder(.config) == passwordHome + "/.config")
        #expect(HostEnvironment.process(variables: ["HOME": "relative/home"]).home == passwordHome)
        let given = HostEnvironment.process(variables: ["HOME": "/srv/person", "XDG_DATA_HOME": "/srv/data"])
        #expect(given.home == "/srv/person")
        #expect(given.folder(.data) == "/srv/data")
        #expect(given.folder(.cache) == "/srv/person/.cache")
    }

    /// The folder of the test runner, where SwiftPM put the real plugin libraries.
    static let runnerDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().path

    /// A folder of its own holding a copy of the real Settings library: not the build folder, so it runs isolated.
    static func pluginFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stated-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: "\(runnerDirectory)/libSettings.so", toPath: "\(folder)/libSettings.so")
        return folder
    }

    @Test(
        "where the environment says the kernel lacks Landlock, an isolated feature is refused before any child starts, naming the mechanism and --allow-unsandboxed"
    )
    func missingMechanismRefusesIsolatedFeature() async throws {
        let folder = try Self.pluginFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let environment = HostEnvironment.process.setting("MICROAPP_TEST_SANDBOX_MISSING", to: "landlock")
            .setting("MICROAPP_ZYGOTE", to: "0")
        let arguments = try Arguments(
            ["run", "--no-build", "--no-probe"], environment: environment)
        let host = HostConfiguration(name: "Stated", home: "stated://home", services: { _, _ in Container() })
        let set = try await LoadedPluginSet.load(arguments, host: host, directories: [folder])
        defer { set.endIsolated() }
        let refusal = try #require(set.problems.first { $0.code == .sandboxMissing }, "\(set.problems)")
        #expect(refusal.subject == "\(folder)/libSettings.so")
        #expect(refusal.reason.contains("landlock") && refusal.fix.contains("--allow-unsandboxed"))
        #expect(set.isolated.isEmpty, "no child was started for it")
    }

    @Test("the same command in an environment that says nothing of the kind is not refused for the sandbox")
    func unstatedMechanismIsNotMissing() throws {
        let check = SandboxCheck.here(allowingUnsandboxed: false, environment: HostEnvironment.stated().variables)
        let pretended = SandboxCheck.here(
            allowingUnsandboxed: false,
            environment: HostEnvironment.stated(["MICROAPP_TEST_SANDBOX_MISSING": "landlock, seccomp"]).variables)
        #expect(check.missing == Sandbox.support.missing, "only what the kernel lacks")
        #expect(pretended.missing.contains(.landlock) && pretended.missing.contains(.seccomp))
        let allowed = SandboxCheck.here(
            allowingUnsandboxed: true,
            environment: HostEnvironment.stated(["MICROAPP_TEST_SANDBOX_MISSING": "landlock"]).variables)
        #expect(allowed.unsandboxed)
    }

    @Test("the host's XDG data folder is where `microapp sdk` installs, by the one rule: a relative one is ignored")
    func sdkFolderFollowsTheEnvironment() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let set = try SDKInstallation(
            repository: repository, environment: HostEnvironment.stated(["XDG_DATA_HOME": "/data"], home: "/home/rick"))
        #expect(set.folder.path == "/data/microapp/sdk/\(set.version)")
        let relative = try SDKInstallation(
            repository: repository, environment: HostEnvironment.stated(["XDG_DATA_HOME": "data"], home: "/home/rick"))
        #expect(relative.folder.path == "/home/rick/.local/share/microapp/sdk/\(relative.version)")
        let chosen = try SDKInstallation(
            repository: repository, environment: HostEnvironment.stated(["MICROAPP_SDK": "/chosen"], home: "/home/rick")
        )
        #expect(chosen.folder.path == "/chosen")
    }
}
