import Foundation
import TestScratch
import Testing

/// Every feature's screens, in every state it previews, compared with the golden files checked in beside it.
/// After an intended change to a screen, `scripts/update-previews` rewrites them (review the diff, commit it).
@Suite("End to end: golden previews of every feature", .promptResumes)
struct PreviewGoldenTests {
    static let fix =
        "run `scripts/update-previews` (it builds, then writes Plugins/<Feature>/Previews/*.txt), review the diff and commit it"

    @Test(
        "`microapp preview F --state all --ui text` draws exactly the checked-in Plugins/F/Previews/*.txt",
        arguments: Repository.featureFolders)
    func goldens(folder: String) async throws {
        let goldens = Repository.root.appendingPathComponent("Plugins/\(folder)/Previews")
        let expected = try Self.textFiles(in: goldens)
        guard !expected.isEmpty else {
            Issue.record("Plugins/\(folder) has no golden previews in Plugins/\(folder)/Previews; to fix: \(Self.fix)")
            return
        }
        let output = try temporaryFolder("microapp-previews")
        let written = try await runToEnd(
            ["preview", folder, "--state", "all", "--ui", "text", "--output", output.path, "--no-build"])
        try #require(written.status == 0, "preview \(folder) failed: \(written.err)")
        let actual = try Self.textFiles(in: output)
        for name in Set(expected.keys).subtracting(actual.keys).sorted() {
            Issue.record("Plugins/\(folder)/Previews/\(name) is no longer drawn by any preview; to fix: \(Self.fix)")
        }
        for name in Set(actual.keys).subtracting(expected.keys).sorted() {
            Issue.record("\(folder) previews \(name), which has no golden file; to fix: \(Self.fix)")
        }
        for (name, text) in actual.sorted(by: { $0.key < $1.key }) {
            guard let golden = expected[name], golden != text else { continue }
            Issue.record(
                "Plugins/\(folder)/Previews/\(name) differs from what \(folder) draws now:\n\(Self.difference(golden, text))\nif the change is intended, \(Self.fix)"
            )
        }
        // Without --output the same screens go to stdout, in the order the files were written, a blank line apart.
        let printed = try await runToEnd(["preview", folder, "--state", "all", "--ui", "text", "--no-build"])
        let order = written.out.split(separator: "\n").map { ($0 as NSString).lastPathComponent }
        let joined = order.compactMap { actual[$0] }.map { String($0.dropLast()) }.joined(separator: "\n\n") + "\n"
        #expect(printed.status == 0)
        #expect(printed.out == joined)
    }

    @Test("--ui json writes one frame line per preview with its name, state and variant")
    func jsonLines() async throws {
        let result = try await runToEnd(["preview", "Auth", "auth://sign-in", "--ui", "json", "--no-build"])
        #expect(result.status == 0)
        let lines = result.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(lines.map { $0["state"] as? String } == ["view", "view", "loading", "alert", "error"])
        #expect(lines.allSatisfy { $0["type"] as? String == "frame" && $0["route"] as? String == "auth://sign-in" })
        #expect(lines[1]["variant"] as? String == "field errors")
        #expect(lines[3]["name"] as? String == "sign-in.alert")
        #expect(result.out.hasPrefix(#"{"type":"frame","#))
    }

    @Test("a route pattern and a state choose among the previews; one that is not there is a usage error")
    func choosing() async throws {
        let errors = try await runToEnd([
            "preview", "Characters", "characters://detail/{id}", "--state", "error", "--no-build",
        ])
        #expect(errors.status == 0)
        #expect(errors.out.contains("No character with id 999") && errors.out.contains("service is unavailable"))
        #expect(!errors.out.contains("preview · view"))
        let none = try await runToEnd(["preview", "Characters", "characters://list", "--state", "alert", "--no-build"])
        #expect(none.status == 1)
        #expect(none.err.contains("no alert preview") && none.err.contains("--state error"))
        let route = try await runToEnd(["preview", "Auth", "auth://nowhere", "--no-build"])
        #expect(route.status == 1)
        #expect(route.err.contains("auth://sign-up"))
    }

    /// The `.txt` files of `folder` by name.
    static func textFiles(in folder: URL) throws -> [String: String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var files: [String: String] = [:]
        for name in names where name.hasSuffix(".txt") {
            files[name] = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }
        return files
    }

    /// The first line that differs, with its number.
    static func difference(_ golden: String, _ actual: String) -> String {
        let left = golden.components(separatedBy: "\n")
        let right = actual.components(separatedBy: "\n")
        for index in 0..<max(left.count, right.count) {
            let old = index < left.count ? left[index] : "(no line)"
            let new = index < right.count ? right[index] : "(no line)"
            if old != new { return "  line \(index + 1), golden: \(old)\n  line \(index + 1), now:    \(new)" }
        }
        return "  (they differ only in line endings)"
    }
}
