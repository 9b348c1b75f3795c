import Foundation
import Testing

/// `microapp solo --watch` as a person works with it: a source saved in the repository shows on screen.
@Suite("End to end: editing a feature's source with --watch")
struct EditSourceHotSwapTests {
    /// The source file whose visible text is edited.
    static let detailSource = "Plugins/Characters/Sources/CharacterDetailPresenter.swift"

    @Test(
        "each save of Characters' source (renamed over or written in place) ends in one outcome of its own bytes: built and swapped with the new screen drawn at once, or build-failed with the last good version answering; of saves 50 ms apart only the newest lands"
    )
    func editedSourceIsSwappedIn() async throws {
        // A copy: the test edits sources and builds, which must touch neither this repository nor its build lock. The
        // process's shared one (its SDK may be built already); the edited source gets its bytes back afterwards.
        try await RepositoryCopy.usingShared(restoring: [Self.detailSource]) { try await editWhileRunning(in: $0) }
    }

    private func editWhileRunning(in copy: RepositoryCopy) async throws {
        // ~17 s on an idle machine; far longer on a loaded CI machine.
        let plugins = try await copy.build(product: "Characters", timeout: .seconds(600))
        // The in-process dev loop (`--isolation none`): a --plugins build would run isolated under auto.
        let app = try AppProcess([
            "solo", "Characters", "--watch", "--ui", "json", "--isolation", "none", "--plugins", plugins.path,
        ])

        // Some state to keep: the second page loaded, one character opened from it.
        try await app.waitForFrame(route: "characters://list") { screenText($0).contains("page 1 of 3") }
        try app.send([["type": "tap", "id": "more"]])
        try await app.waitForFrame(route: "characters://list") { screenText($0).contains("page 2 of 3") }
        try app.send([["type": "select", "id": "characters", "index": 12]])
        let before = try await app.waitForFrame(route: "characters://detail/13") {
            screenText($0).contains("Origin: unknown")
        }
        #expect(before["version"] as? Int == 1)
        try await app.waitFor("notice") { $0["code"] as? String == "watching" }

        // Saving the same bytes again, and an editor's hidden lock file beside the source: nothing to build.
        // The lock is written first: had it counted as a source, its build would be announced before the save's
        // `unchanged` notice, since the watcher hands on changes in order and each batch's build is awaited.
        let file = copy.root.appendingPathComponent(Self.detailSource)
        let original = try String(contentsOf: file, encoding: .utf8)
        let lock = file.deletingLastPathComponent().appendingPathComponent(".#CharacterDetailPresenter.swift")
        try "user@host.1234:1700000000".write(to: lock, atomically: false, encoding: .utf8)
        try original.write(to: file, atomically: true, encoding: .utf8)
        let unchanged = try await app.waitFor("notice") { $0["code"] as? String == "unchanged" }
        #expect(
            (unchanged["message"] as? String)?.hasPrefix("CharacterDetailPresenter.swift saved: nothing new to build")
                == true)
        #expect(!app.objects.contains { $0["code"] as? String == "building" }, "an unchanged save started a build")
        try FileManager.default.removeItem(at: lock)

        // Saved as an editor saves: the whole file written beside it and renamed over it.
        try #require(original.contains(#""Origin: \(detail.origin)""#), "the edited string moved; update this test")
        let edited = original.replacingOccurrences(of: #""Origin: "#, with: #""Born in: "#)
        try edited.write(to: file, atomically: true, encoding: .utf8)

        let swapped = try await app.waitFor("notice", timeout: .seconds(300)) { $0["code"] as? String == "swapped" }
        #expect(swapped["feature"] as? String == "characters")
        #expect(swapped["from"] as? Int == 1 && swapped["to"] as? Int == 2)
        let built = app.objects.first { $0["code"] as? String == "built" }
        #expect(built?["feature"] as? String == "characters", "a swap from a saved source follows a `built` notice")
        let after = try await app.waitForFrame(route: "characters://detail/13") {
            screenText($0).contains("Born in: unknown")
        }
        #expect(after["version"] as? Int == 2)
        #expect(after["depth"] as? Int == 1, "the list is still below the detail")
        #expect(screenText(after).contains("Alien Googah") && !screenText(after).contains("Origin:"))
        // Back on the list, the pages loaded before the swap are still there (a fresh start would show page 1).
        try app.send([["type": "back"]])
        try await app.waitForFrame(route: "characters://list") {
            $0["version"] as? Int == 2 && screenText($0).contains("page 2 of 3")
        }

        // A save that does not compile: reported with the compiler's error, and version 2 stays.
        try (edited + "\nprivate let notANumber: Int = \"not a number\"\n").write(
            to: file, atomically: true, encoding: .utf8)
        let failed = try await app.waitFor("error", timeout: .seconds(300)) { $0["code"] as? String == "build-failed" }
        #expect(failed["feature"] as? String == "characters")
        let detail = (failed["detail"] as? [String]) ?? []
        #expect(
            detail.contains { $0.hasPrefix(Self.detailSource + ":") && $0.contains("error:") },
            "the notice carries the compiler's error: \(failed)")
        try app.send([["type": "tap", "id": "more"]])
        try await app.waitForFrame(route: "characters://list") {
            $0["version"] as? Int == 2 && screenText($0).contains("page 3 of 3")
        }
        try app.send([["type": "select", "id": "characters", "index": 25]])
        let last = try await app.waitForFrame(route: "characters://detail/26") {
            screenText($0).contains("Born in: Purge Planet")
        }
        #expect(last["version"] as? Int == 2)
        #expect(
            app.objects.filter { $0["code"] as? String == "swapped" }.count == 1, "the broken save was not swapped in")

        // From here on no input is sent: each new frame must come from the save alone.
        // A good save after the broken one, written in place (truncated and written, as VS Code and nano save).
        var mark = app.mark
        try Self.saveInPlace(original.replacingOccurrences(of: #""Origin: "#, with: #""Came from: "#), to: file)
        try await Self.expectSwap(in: app, since: mark, to: 3, showing: "Came from: Purge Planet")

        // Two saves 50 ms apart: only the newest bytes are built, announced and drawn.
        mark = app.mark
        try Self.saveInPlace(original.replacingOccurrences(of: #""Origin: "#, with: #""Home A: "#), to: file)
        try await Task.sleep(for: .milliseconds(50))
        try Self.saveInPlace(original.replacingOccurrences(of: #""Origin: "#, with: #""Home B: "#), to: file)
        try await Self.expectSwap(in: app, since: mark, to: 4, showing: "Home B: Purge Planet")
        #expect(!app.objects(since: mark).contains { screenText($0).contains("Home A:") }, "older bytes were drawn")

        // A good save, then 50 ms later one that does not compile: one outcome, the broken one's, nothing swapped.
        mark = app.mark
        try Self.saveInPlace(original.replacingOccurrences(of: #""Origin: "#, with: #""Home C: "#), to: file)
        try await Task.sleep(for: .milliseconds(50))
        try Self.saveInPlace(
            original.replacingOccurrences(of: #""Origin: "#, with: #""Home D: "#)
                + "\nprivate let notANumber: Int = \"not a number\"\n", to: file)
        try await app.waitFor("error", since: mark, timeout: .seconds(300)) { $0["code"] as? String == "build-failed" }
        #expect(try await app.finish() == 0)
        let outcome = app.objects(since: mark)
        #expect(!outcome.contains { $0["code"] as? String == "swapped" }, "a save that does not compile was swapped in")
        #expect(!outcome.contains { $0["code"] as? String == "built" }, "older bytes were announced as built")
        #expect(!outcome.contains { screenText($0).contains("Home C:") }, "older bytes were drawn")
        #expect(outcome.filter { $0["code"] as? String == "build-failed" }.count == 1, "one outcome per save")

        try await startWithBrokenSource(plugins: plugins, text: "Home B: ")
    }

    /// The copy's source does not compile now: `microapp` started from the copy's build folder (so the copy is its
    /// repository and it builds what is stale first) says so as `build-failed`, as under --watch, and runs the last
    /// library that built.
    private func startWithBrokenSource(plugins: URL, text: String) async throws {
        let executable = plugins.appendingPathComponent("microapp")
        try copyExecutable(AppProcess.executable, to: executable.path)
        let run = try await runToEnd(
            ["solo", "Characters", "--ui", "json", "--open", "characters://detail/13"], executable: executable.path,
            input: "")
        #expect(run.status == 0, "\(run.err)")
        let lines = run.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let failed = try #require(lines.first { $0["code"] as? String == "build-failed" }, "\(run.out)\n\(run.err)")
        #expect(
            (failed["message"] as? String)?.contains("the library built before runs for Characters") == true,
            "says which library runs: \(failed)")
        #expect(
            (failed["detail"] as? [String] ?? []).contains { $0.hasPrefix(Self.detailSource + ":") },
            "the compiler's error, by file and line: \(failed)")
        #expect(
            lines.contains { $0["type"] as? String == "frame" && screenText($0).contains(text) },
            "the last library that built draws the screen")
    }

    /// Writes `text` over `file` in place: the file is truncated, then written (same inode), as many editors save.
    private static func saveInPlace(_ text: String, to file: URL) throws {
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    /// Waits for the one outcome of a good save since `mark`: `built`, then `swapped` to version `to`, then a frame of
    /// that version showing `text` on the detail screen, with no `build-failed` and no other swap in between.
    private static func expectSwap(in app: AppProcess, since mark: Int, to version: Int, showing text: String)
        async throws
    {
        let frame = try await app.waitFor("frame", since: mark, timeout: .seconds(300)) {
            screenText($0).contains(text)
        }
        #expect(frame["version"] as? Int == version, "the new code's frame has the new version: \(frame)")
        let lines = app.objects(since: mark)
        // A save during a build is built by it: its own batch then finds nothing new (`unchanged`).
        let codes = lines.compactMap { $0["code"] as? String }.filter { $0 != "building" && $0 != "unchanged" }
        #expect(codes == ["built", "swapped"], "one save, one outcome: \(codes)")
        let swapped = lines.firstIndex { $0["code"] as? String == "swapped" }
        let drawn = lines.firstIndex { $0["type"] as? String == "frame" && screenText($0).contains(text) }
        guard let swapped, let drawn else {
            Issue.record("no swap notice before the new frame: \(lines)")
            return
        }
        #expect(swapped < drawn, "the new frame follows the swap notice")
        #expect(lines[swapped]["to"] as? Int == version)
    }
}
