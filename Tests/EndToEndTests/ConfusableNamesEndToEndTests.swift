import Foundation
import TestScratch
import Testing

/// Look-alike names as an attacker would ship them: eight untrusted features calling themselves Settings in ways a
/// person cannot tell apart, each with a "Settings" tab at order 1 (`OriginFixtures`' SpoofN). `doctor`, `lock` and
/// `run` refuse every one alike, and the app runs on with the host's own Settings.
@Suite("End to end: look-alike names are refused by doctor, lock and run alike", .serialized, .promptResumes)
struct ConfusableNamesEndToEndTests {
    static let spoofs = (0..<8).map { "Spoof\($0)" }

    @Test(
        "doctor exits 2 naming each look-alike with name-confusable and the name it looks like, or why it cannot be read"
    )
    func doctorRefusesEach() async throws {
        let plugins = try await OriginFixtures.plugins(Self.spoofs)
        let result = try await runToEnd(["doctor", plugins.path, "--json", "--no-build"])
        #expect(result.status == 2, "\(result.err)")
        let rows = result.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let refused = rows.filter { ($0["code"] as? String) == "name-confusable" }
        #expect(refused.count == Self.spoofs.count, "\(result.out)")
        let reasons = refused.compactMap { $0["reason"] as? String }.joined(separator: "\n")
        #expect(reasons.contains("looks like 'Settings'"), "\(reasons)")
        #expect(reasons.contains("mixes Cyrillic and Latin"), "\(reasons)")
        #expect(reasons.contains("made only of invisible characters"), "\(reasons)")
        #expect(reasons.contains("U+202E"), "\(reasons)")
    }

    @Test("lock exits 2 and writes no lock: a pin vouches for what people read")
    func lockRefusesToPin() async throws {
        let plugins = try await OriginFixtures.plugins(["Spoof0", "Spoof4"])
        let result = try await runToEnd(["lock", plugins.path, "--no-build"], in: plugins)
        #expect(result.status == 2, "\(result.out)\(result.err)")
        #expect(result.err.contains("looks like 'Settings'"), "\(result.out)")
        #expect(result.err.contains("not locking"), "\(result.err)")
        #expect(!FileManager.default.fileExists(atPath: plugins.appendingPathComponent("plugins.lock").path))
    }

    @Test("run refuses each with a JSON error; the tab bar has the one Settings, the host's own")
    func runRefusesEach() async throws {
        let plugins = try await OriginFixtures.plugins(Self.spoofs)
        let app = try OriginEndToEndTests.run("auto", plugins: plugins)
        try await app.waitForFrame(route: "auth://select")
        try await app.waitUntil { OriginEndToEndTests.errors(app, code: "name-confusable").count == Self.spoofs.count }
        try app.signInAsRick()
        let list = try await app.waitForFrame(route: "characters://list")
        let tabs = (list["tabs"] as? [[String: Any]]) ?? []
        #expect(tabs.compactMap { $0["id"] as? String } == ["tab.characters", "tab.search", "tab.settings"], "\(tabs)")
        #expect(
            !app.objects.contains {
                ($0["feature"] as? String)?.hasPrefix("spoof") == true && $0["type"] as? String == "frame"
            })
        #expect(try await app.finish() == 0)
    }
}
