import Foundation
import MicroappLoading
import MicroappPlatform
import TestScratch
import Testing

/// Inspection runs no plugin code outside a sandbox: `lock` and `probe` learn what a library is in a sandboxed
/// probe process only, so a constructor that writes into the person's files leaves nothing behind.
@Suite("End to end: lock and probe run no library code with the person's rights", .promptResumes)
struct InspectionSandboxTests {
    /// A C library (Constructor.c.template, `WRITE_MARKER`) whose constructor writes `marker`, in a folder of its own.
    static func markerLibrary(writing marker: URL) async throws -> URL {
        try await constructorLibrary("WRITE_MARKER", named: "Marker", defines: ["-DHOSTILE_MARKER=\"\(marker.path)\""])
    }

    /// A C library (Constructor.c.template built with `-DHOSTILE_<behaviour>` and `defines`) named `lib<name>.so`,
    /// alone in a folder of its own.
    static func constructorLibrary(_ behaviour: String, named name: String, defines: [String] = []) async throws -> URL
    {
        let folder = try temporaryFolder("constructor-\(name)")
        let source = try String(
            contentsOf: HostileCorpus.folder.appendingPathComponent("Constructor.c.template"), encoding: .utf8
        ).replacingOccurrences(of: "__ID__", with: name.lowercased())
        let file = folder.appendingPathComponent("\(name).c")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let library = folder.appendingPathComponent("lib\(name).so")
        let build = AppProcess.buildDirectory.path
        let include = Repository.root.appendingPathComponent("Sources/MicroappSDK/ABI/include").path
        let arguments =
            ["cc", "-w", "-shared", "-fPIC", "-DHOSTILE_\(behaviour)"] + defines + [
                "-I", include, "-L", build, "-lMicroappSDK", "-Wl,-rpath,\(build)", "-o", library.path, file.path,
            ]
        let outcome = try await offThePool {
            try CompilerSlots.run {
                try ChildProcess(arguments, environment: Scratch.childEnvironment(), error: .output).wait()
            }
        }
        guard outcome.termination == .exited(0) else { throw AppProcessError("cc failed:\n\(outcome.text)") }
        return library
    }

    /// The marker file's path in a new folder standing for the person's home, and that folder.
    static func marker() throws -> URL {
        try temporaryFolder("inspection-home").appendingPathComponent("constructor-ran")
    }

    @Test("`probe FILE` runs a constructor only in a sandboxed child: the file it writes in HOME never appears")
    func probeLeavesNoMarker() async throws {
        let marker = try Self.marker()
        let library = try await Self.markerLibrary(writing: marker)
        let probe = try await runMicroapp(["probe", "--json", library.path], in: library.deletingLastPathComponent())
        // Its register_feature registers nothing, so it is refused; what matters is where its constructor ran.
        #expect(probe.status == 2)
        #expect(probe.out.contains("\"verdict\":\"refused\""), "\(probe.out)")
        #expect(probe.out.contains(library.path), "the report names the library, not its private copy")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the constructor ran outside the sandbox")
    }

    @Test("`lock DIR` loads no library in its own process: a constructor's file never appears, nothing is locked")
    func lockLeavesNoMarker() async throws {
        let marker = try Self.marker()
        let library = try await Self.markerLibrary(writing: marker)
        let folder = library.deletingLastPathComponent()
        try FileManager.default.copyItem(
            at: AppProcess.buildDirectory.appendingPathComponent("libAuth.so"),
            to: folder.appendingPathComponent("libAuth.so"))
        let lock = try await runMicroapp(["lock", folder.path], in: folder)
        #expect(lock.status == 2, "\(lock.err)")
        #expect(lock.err.contains("libMarker.so"))
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the constructor ran in the lock's process")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("plugins.lock").path))
    }

    @Test("`lock DIR` pins the SHA-256 of each library's bytes and shows the manifest its sandboxed probe read")
    func lockPinsDigestsAndShowsManifests() async throws {
        let folder = try temporaryFolder("inspection-lock")
        for name in ["libAuth.so", "libCharacters.so"] {
            try FileManager.default.copyItem(
                at: AppProcess.buildDirectory.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        let lock = try await runMicroapp(["lock", folder.path], in: folder)
        #expect(lock.status == 0, "\(lock.err)")
        let written = try PluginLock.load(in: folder.path)
        let entries = try #require(written?.libraries)
        #expect(entries["libAuth.so"]?.feature == "auth")
        #expect(entries["libCharacters.so"]?.feature == "characters")
        for (name, entry) in entries {
            #expect(entry.sha256 == (try PluginLock.digest(of: folder.appendingPathComponent(name).path)))
            #expect(lock.out.contains("\(name)  \(entry.feature) v1  sha256 \(entry.sha256.prefix(16))"), "\(lock.out)")
        }
        #expect(lock.out.contains("locked 2 libraries"))
    }

    @Test("`run --help` says that --isolation none runs features with the person's full rights")
    func isolationNoneHelpSaysFullRights() async throws {
        let help = try await runMicroapp(["run", "--help"], in: AppProcess.buildDirectory)
        #expect(help.out.contains("with your full rights"), "\(help.out)")
    }
}
