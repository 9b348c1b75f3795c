import Foundation
import TestScratch
import Testing

/// Adding and removing a feature as a person does, with real SwiftPM builds in a copy of the repository (never in the
/// repository `swift test` runs in: its build lock is held).
@Suite("End to end: adding and removing a feature, built by SwiftPM")
struct FeatureLifecycleTests {
    @Test(
        "microapp new → swift build → microapp remove → swift build, with SwiftPM's manifest cache on: each build sees the change, no cache purge, no invalid custom path"
    )
    func addBuildRemoveBuild() async throws {
        // The process's shared copy (its SDK may be built already). `remove` takes back what `new` did; should the
        // test stop before it, the manifest gets its bytes back and the feature's folder goes.
        try await RepositoryCopy.usingShared(restoring: ["Package.swift", "Plugins/\(NewCommandTests.name)"]) {
            try await addAndRemove(in: $0)
        }
    }

    private func addAndRemove(in copy: RepositoryCopy) async throws {
        let name = NewCommandTests.name
        let library = copy.root.appendingPathComponent(".build/debug/lib\(name).so")
        let added = try await runMicroapp(["new", name], in: copy.root)
        try #require(added.status == 0, "\(added.err)")

        // The new feature's library and its tests' module (against the SDK and MicroappTesting): the folder is seen.
        let built = try await copy.swift(["build", "--product", name], timeout: .seconds(900))
        try #require(built.status == 0, "\(built.output)")
        #expect(FileManager.default.fileExists(atPath: library.path))
        let tests = try await copy.swift(["build", "--target", "\(name)Tests"], timeout: .seconds(600))
        #expect(tests.status == 0, "\(tests.output)")

        let removed = try await runMicroapp(["remove", name, "--yes"], in: copy.root)
        try #require(removed.status == 0, "\(removed.err)")
        #expect(!FileManager.default.fileExists(atPath: copy.root.appendingPathComponent("Plugins/\(name)").path))
        #expect(!FileManager.default.fileExists(atPath: library.path), "remove deletes the library built from it")

        // The same cache: the manifest changed, so SwiftPM evaluates it again and knows the feature is gone.
        let after = try await copy.swift(["build", "--target", "SettingsTests"], timeout: .seconds(600))
        #expect(after.status == 0, "\(after.output)")
        #expect(!after.output.contains("invalid custom path"), "\(after.output)")
        let gone = try await copy.swift(["build", "--product", name], timeout: .seconds(120))
        #expect(gone.status != 0)
        #expect(gone.output.contains("no product named '\(name)'"), "\(gone.output)")
    }
}
