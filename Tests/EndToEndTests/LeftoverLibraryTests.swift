import Foundation
import TestScratch
import Testing

/// A repository whose `Plugins/Settings` was deleted after a build: `microapp` and the real libraries sit in its
/// `.build/debug` as SwiftPM left them, `libSettings.so` among them.
private struct DeletedFeatureRepository {
    let root: URL
    let buildFolder: URL
    var executable: String { buildFolder.appendingPathComponent("microapp").path }

    init() throws {
        root = try temporaryFolder("microapp-leftover")
        buildFolder = root.appendingPathComponent(".build/debug")
        let files = FileManager.default
        try Data().write(to: root.appendingPathComponent("Package.swift"))
        try files.createDirectory(
            at: root.appendingPathComponent("Plugins/Auth/Sources"), withIntermediateDirectories: true)
        try files.createDirectory(at: buildFolder, withIntermediateDirectories: true)
        // A copy, not a link: the host finds its repository from the path of its own executable.
        try copyExecutable(AppProcess.executable, to: executable)
        for name in ["libMicroappSDK.so", "libAuth.so", "libSettings.so"] {
            try files.copyItem(
                at: AppProcess.buildDirectory.appendingPathComponent(name), to: buildFolder.appendingPathComponent(name)
            )
        }
    }

    /// Runs its `microapp` with `arguments` in the repository.
    func run(_ arguments: [String]) async throws -> (status: Int32, out: String, err: String) {
        try await runToEnd(arguments, executable: executable, in: root)
    }
}

@Suite("End to end: libraries of deleted features", .promptResumes)
struct LeftoverLibraryTests {
    @Test(
        "a library in the repository's build folder whose feature folder is gone is not loaded, with one notice naming it"
    )
    func skippedWithOneNotice() async throws {
        let repository = try DeletedFeatureRepository()
        defer { try? FileManager.default.removeItem(at: repository.root) }

        let doctor = try await repository.run(["doctor", "--json", "--no-build", "--no-probe"])
        #expect(doctor.status == 0, "\(doctor.out)\n\(doctor.err)")
        #expect(!doctor.out.contains("libSettings.so"))
        #expect(doctor.out.contains("libAuth.so"))
        let notes = doctor.err.components(separatedBy: "skipped libSettings.so").count - 1
        #expect(notes == 1, "\(doctor.err)")
        #expect(doctor.err.contains("skipped libSettings.so (Plugins/Settings no longer exists)"))
        #expect(doctor.err.contains("to fix:"))

        let data = try temporaryFolder("microapp-leftover-data")
        defer { try? FileManager.default.removeItem(at: data) }
        let run = try await repository.run(
            ["run", "--ui", "json", "--no-build", "--no-probe", "--data", data.path])
        #expect(run.status == 0, "\(run.err)")
        let lines = run.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let notices = lines.filter { $0["code"] as? String == "skipped-libraries" }
        #expect(notices.count == 1, "\(run.out)")
        #expect((notices.first?["message"] as? String)?.contains("libSettings.so") == true)
        #expect(!run.err.contains("skipped"), "JSON mode says it once, on stdout: \(run.err)")
    }

    @Test("a library named with --plugins is loaded even when no feature folder of the repository has its name")
    func pluginsFolderUnaffected() async throws {
        let repository = try DeletedFeatureRepository()
        defer { try? FileManager.default.removeItem(at: repository.root) }
        let elsewhere = try temporaryFolder("microapp-leftover-plugins")
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        try FileManager.default.moveItem(
            at: repository.buildFolder.appendingPathComponent("libSettings.so"),
            to: elsewhere.appendingPathComponent("libSettings.so"))

        let graph = try await repository.run(
            ["graph", "--format", "json", "--plugins", elsewhere.path, "--no-build", "--no-probe"]
                // The --plugins copy is untrusted: it is granted by name what the repository's own Settings uses.
                + ["auth.sign-out", "auth.delete-account"].flatMap {
                    ["--grant", "settings=\($0)"]
                })
        #expect(graph.status == 0, "\(graph.out)\n\(graph.err)")
        #expect(graph.out.contains(#""feature":"settings""#))
        #expect(!graph.err.contains("skipped"), "\(graph.err)")
    }
}
