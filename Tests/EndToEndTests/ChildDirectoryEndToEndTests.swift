import Foundation
import Testing

/// An isolated child starts in its own scratch folder, never the host's working directory (the checkout), whether
/// the zygote forked it or it was started as a process of its own.
@Suite("End to end: an isolated child starts in its scratch folder", .serialized)
struct ChildDirectoryEndToEndTests {
    @Test("a feature's working directory is its scratch folder, forked from the zygote or not", arguments: ["1", "0"])
    func childStartsInItsScratchFolder(zygote: String) async throws {
        let plugins = try await OriginFixtures.plugins(["Pwd"])
        let app = try AppProcess(
            [
                "run", "--no-supervise", "--ui", "json", "--isolation", "process", "--plugins", plugins.path,
                "--data", AppProcess.freshDataDirectory(), "--open", "pwd://home",
            ], environment: ["MICROAPP_ZYGOTE": zygote])
        let frame = try await app.waitForFrame(route: "pwd://home") { screenText($0).contains("cwd=") }
        let text = screenText(frame)
        #expect(text.contains("/microapp-feature-") && text.contains("/scratch"), "\(text)")
        #expect(!text.contains(FileManager.default.currentDirectoryPath + "\n"), "\(text)")
        #expect(try await app.finish() == 0)
    }
}
