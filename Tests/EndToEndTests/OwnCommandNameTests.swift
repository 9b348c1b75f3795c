import Foundation
import TestScratch
import Testing

/// A host speaks its own name: this build's executable under another name (`hello-host`, a hard link beside the SDK it
/// links) says that name in its version, help, usage errors, fixes and did-you-mean, never `microapp`.
@Suite("End to end: a host under its own name", .promptResumes)
struct OwnCommandNameTests {
    /// This build's host as `hello-host`, in a folder of its own with the SDK it links.
    static func helloHost() throws -> String {
        let folder = try temporaryFolder("own-command-name")
        let host = folder.appendingPathComponent("hello-host")
        do {
            try FileManager.default.linkItem(atPath: AppProcess.executable, toPath: host.path)
        } catch {
            try FileManager.default.copyItem(atPath: AppProcess.executable, toPath: host.path)
        }
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("libMicroappSDK.so"),
            withDestinationURL: AppProcess.buildDirectory.appendingPathComponent("libMicroappSDK.so"))
        return host.path
    }

    /// The words `microapp` is in as a command, not a path or file (`$XDG_CACHE_HOME/microapp`, `microapp.h`).
    static func commandMentions(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { line in
            line.replacingOccurrences(of: "/microapp", with: "").replacingOccurrences(of: "// microapp:", with: "")
                .contains("microapp")
        }
    }

    @Test("version, help, a near miss, a usage error and its fix all say hello-host")
    func speaksItsOwnName() async throws {
        let host = try Self.helloHost()
        let version = try await runToEnd(["--version"], executable: host)
        #expect(version.out.hasPrefix("hello-host (MicroappTool 0.1.0, entry ABI 1, SDK "), "\(version.out)")

        let help = try await runToEnd(["--help"], executable: host)
        #expect(help.out.hasPrefix("hello-host — run feature plugins"), "\(help.out)")
        #expect(help.out.contains("  hello-host routes [options]"))
        #expect(Self.commandMentions(help.out).isEmpty, "\(Self.commandMentions(help.out))")

        let nearMiss = try await runToEnd(["rout"], executable: host)
        #expect(nearMiss.status == 1)
        // A fix says the command as it can be typed: this hello-host is not on PATH, so by its full path.
        let typed = URL(fileURLWithPath: host).resolvingSymlinksInPath().path
        #expect(
            nearMiss.err.contains("did you mean `\(typed) routes`? (`\(typed) --help` lists them)"), "\(nearMiss.err)")

        let usage = try await runToEnd(["rollback"], executable: host)
        #expect(usage.status == 1)
        #expect(usage.err.hasPrefix("hello-host: "), "\(usage.err)")
        #expect(usage.err.contains("hello-host rollback"), "\(usage.err)")
        #expect(Self.commandMentions(usage.err).isEmpty, "\(usage.err)")

        for command in ["run", "remove", "release", "update", "rollback", "lock", "new", "bundle", "sdk"] {
            let help = try await runToEnd([command, "--help"], executable: host)
            #expect(Self.commandMentions(help.out).isEmpty, "\(command): \(Self.commandMentions(help.out))")
        }
    }

    @Test("the running app's notices say hello-host too")
    func runningAppSpeaksItsOwnName() async throws {
        let host = try Self.helloHost()
        let run = try await runToEnd(
            [
                "--ui", "json", "--no-build", "--no-probe", "--isolation", "none", "--plugins",
                AppProcess.buildDirectory.path, "--only", "characters", "--open", "nowhere://here",
            ], executable: host)
        let lines = run.out.split(separator: "\n")
        let error = try #require(lines.first { $0.contains(#""type":"error""#) }, "\(run.out)\n\(run.err)")
        #expect(error.contains("run `hello-host routes` to list the routes"), "\(error)")
        // The host's own problem screen says it too.
        #expect(lines.contains { $0.contains(#""type":"frame""#) && $0.contains("To fix: run `hello-host routes`") })
        #expect(!run.out.contains("`microapp "), "\(run.out)")
    }

    @Test("the demo's own host still says microapp")
    func demoSaysMicroapp() async throws {
        let nearMiss = try await runToEnd(["rout"])
        #expect(nearMiss.err.contains("did you mean `\(AppProcess.typed) routes`?"), "\(nearMiss.err)")
        #expect(try await runToEnd(["--version"]).out.hasPrefix("microapp 0.1.0 (entry ABI 1, SDK "))
    }
}
