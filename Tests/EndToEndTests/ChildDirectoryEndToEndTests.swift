import Foundation
import TestScratch
import Testing

/// An isolated child starts in its own scratch folder, never the host's working directory (the checkout), whether
/// the zygote forked it or it was started as a process of its own.
@Suite("End to end: an isolated child starts in its scratch folder", .serialized, .promptResumes)
struct ChildDirectoryEndToEndTests {
    @Test("a feature's working directory is its scratch folder, forked from the zygote or not", arguments: ["1", "0"])
    func childStartsInItsScratchFolder(zygote: String) async throws {
        let plugins = try await OriginFixtures.plugins(["Pwd"])
        let app = try AppProcess.isolated(plugins, opening: "pwd://home", environment: ["MICROAPP_ZYGOTE": zygote])
        let frame = try await app.waitForFrame(route: "pwd://home") { screenText($0).contains("cwd=") }
        let text = screenText(frame)
        #expect(text.contains("/microapp-feature-") && text.contains("/scratch"), "\(text)")
        #expect(!text.contains(FileManager.default.currentDirectoryPath + "\n"), "\(text)")
        #expect(try await app.finish() == 0)
    }
}

/// A restarted child is held to what its feature's first child registered: the host's record, not the new child's word.
@Suite(
    "End to end: a restarted child registers the manifest its feature's first child did, or is cut off", .promptResumes)
struct RestartedManifestEndToEndTests {
    @Test("Shifter registers another name in its restarted child: cut off with feature-protocol, the app goes on")
    func restartWithAnotherManifestIsCutOff() async throws {
        let plugins = try await OriginFixtures.plugins(["Shifter"])
        let app = try AppProcess.isolated(plugins, opening: "shifter://home", environment: [:])
        let first = try await app.waitForFrame(route: "shifter://home") { screenText($0).contains("Go") }
        let recorded = try #require(first["featureName"] as? String)
        try app.send([["type": "tap", "id": "go"]])
        try await app.waitFor("error") { $0["code"] as? String == "feature-exited" }
        try await app.waitForFrame(route: "shifter://home") { screenText($0).contains("\"restart\"") }
        try app.send([["type": "tap", "id": "restart"]])
        let cut = try await app.waitFor("error") { $0["code"] as? String == "feature-protocol" }
        let message = (cut["message"] as? String) ?? ""
        #expect(message.contains("a manifest other than the one shifter registered when it first started"), "\(cut)")
        // The fixture names itself from its mapped file, which a restart's copy names otherwise: the id differs, or
        // else the name with the child's mark.
        #expect(message.contains("not 'shifter'") || message.contains("not '\(recorded)'"), "\(message)")
        try app.send([["type": "open", "url": "auth://select"]])
        try await app.waitForFrame(route: "auth://select")
        #expect(try await app.finish() == 0)
    }
}
