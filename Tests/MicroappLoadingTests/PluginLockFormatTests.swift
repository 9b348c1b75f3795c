import Foundation
import MicroappCore
import MicroappLoading
import TestScratch
import Testing

@Suite("plugins.lock read by hand: every lock JSONDecoder read reads the same, and a broken one is named")
struct PluginLockFormatTests {
    /// A locked folder of the real Auth and Characters libraries whose lock is `text` with `AUTH` and `CHARACTERS` in
    /// place of their digests: the folder, the libraries' paths and the lock's path.
    static func folder(lock text: String) throws -> (folder: String, paths: [String], lock: String) {
        let (folder, paths) = try PluginLockTests.lockedFolderWithRealPlugins()
        let lock = "\(folder)/\(PluginLock.fileName)"
        let filled = text.replacingOccurrences(of: "AUTH", with: try PluginLock.digest(of: "\(folder)/libAuth.so"))
            .replacingOccurrences(of: "CHARACTERS", with: try PluginLock.digest(of: "\(folder)/libCharacters.so"))
        try Data(filled.utf8).write(to: URL(fileURLWithPath: lock))
        return (folder, paths, lock)
    }

    @Test(
        "a lock as `microapp lock` writes it, with every field, reads back as written and as JSONDecoder reads it",
        .offThePool)
    func writtenLockReadsBack() throws {
        let (folder, paths) = try PluginLockTests.lockedFolderWithRealPlugins()
        var lock = try #require(try PluginLock.load(in: folder))
        lock.libraries["libAuth.so"]?.isolation = .inProcess
        lock.libraries["libAuth.so"]?.grants = ["search.recent", "a/b \"quoted\" é"]
        lock.libraries["libCharacters.so"]?.isolation = .process
        lock.libraries["libCharacters.so"]?.installing = String(repeating: "0", count: 64)
        try lock.write(in: folder)
        let file = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(PluginLock.fileName)"))
        #expect(String(decoding: file, as: UTF8.self).contains("\n  \"libraries\""), "pretty, for people")

        let read = try #require(try PluginLock.load(in: folder))
        #expect(read == lock)
        #expect(read == (try JSONDecoder().decode(PluginLock.self, from: file)))
        let check = PluginSet.checkLocks(paths)
        #expect(check.problems.isEmpty && check.allowed == paths)
        #expect(check.lock(of: paths[0]) == .pinned(setting: .inProcess))
        #expect(check.grants[paths[0]] == ["search.recent", "a/b \"quoted\" é"])
        #expect(check.lock(of: paths[1]) == .pinned(setting: .process))
    }

    @Test(
        "a lock mended by hand (fields it does not know, nulls, escapes, another layout) reads as JSONDecoder read it",
        .offThePool)
    func mendedLockReadsAsBefore() throws {
        let text = """
            \u{FEFF}{ "libraries" : {
              "libAuth.so": {"sha256": "AUTH", "feature": "auth", "isolation": null, "grants": ["search\\/recent",
                "caf\\u00e9",], "note": {"why": ["kept", 1.0, true]},},
              "lib\\u0043haracters.so": {"feature": "characters", "sha256": "CHARACTERS", "installing": null,
                "isolation": "process", "grants": null}
            }, "version": 1, "comment": "written by hand" }\r\n
            """
        let (folder, paths, lock) = try Self.folder(lock: text)
        let read = try #require(try PluginLock.load(in: folder))
        #expect(read == (try JSONDecoder().decode(PluginLock.self, from: Data(contentsOf: URL(fileURLWithPath: lock)))))
        #expect(read.libraries["libAuth.so"]?.grants == ["search/recent", "café"])
        #expect(read.libraries["libCharacters.so"]?.isolation == .process)
        #expect(read.libraries["libCharacters.so"]?.installing == nil)
        let report = PluginSet.load(paths)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.images.map(\.manifest.id) == ["auth", "characters"])
    }

    @Test(
        "a lock that is not JSON or not a lock is refused with where and why, and none of its libraries loads",
        .offThePool,
        arguments: [
            (
                #"{"version": 1, "libraries": {"libAuth.so": {"feature": "auth", "sha256": "ab"},,}}"#,
                "not JSON: line 1, column 80: expected a key in quotes, found ','"
            ),
            (
                "{\"version\": 1,\n \"libraries\": {\"libAuth.so\": {\"feature\": \"auth\", \"sha256\": \"ab\"}",
                "not JSON: line 2, column 65: expected ',' or '}' in an object, found the end"
            ),
            ("", "not JSON: line 1, column 1: expected a value, found the end"),
            (#"["version", 1]"#, "not a JSON object"),
            (#"{"libraries": {}}"#, "version is missing"),
            (#"{"version": "1", "libraries": {}}"#, "version is not a whole number"),
            (#"{"version": 1, "libraries": []}"#, "libraries is not an object"),
            (#"{"version": 1, "libraries": {"libAuth.so": "AUTH"}}"#, #"libraries."libAuth.so" is not an object"#),
            (
                #"{"version": 1, "libraries": {"libAuth.so": {"feature": "auth"}}}"#,
                #"libraries."libAuth.so".sha256 is missing"#
            ),
            (
                #"{"version": 1, "libraries": {"libAuth.so": {"feature": 7, "sha256": "AUTH"}}}"#,
                #"libraries."libAuth.so".feature is not a string"#
            ),
            (
                #"{"version": 1, "libraries": {"libAuth.so": {"feature": "auth", "sha256": null}}}"#,
                #"libraries."libAuth.so".sha256 is not a string"#
            ),
            (
                #"{"version": 1, "libraries": {"libAuth.so": {"feature": "auth", "sha256": "AUTH", "isolation": "sandbox"}}}"#,
                #"libraries."libAuth.so".isolation is "sandbox", neither "process" nor "none""#
            ),
            (
                #"{"version": 1, "libraries": {"libAuth.so": {"feature": "auth", "sha256": "AUTH", "grants": "a"}}}"#,
                #"libraries."libAuth.so".grants is not a list of strings"#
            ),
            (
                #"{"version": 1, "libraries": {"libAuth.so": {"feature": "auth", "sha256": "AUTH", "grants": [1]}}}"#,
                #"libraries."libAuth.so".grants holds a non-string"#
            ),
        ])
    func brokenLockRefused(text: String, reason: String) throws {
        let (folder, paths, lock) = try Self.folder(lock: text)
        // JSONDecoder refused each of these too: no lock that was read before is refused now.
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(PluginLock.self, from: Data(contentsOf: URL(fileURLWithPath: lock)))
        }
        let report = PluginSet.load(paths)
        #expect(report.images.isEmpty)
        #expect(report.problems.map(\.code) == [.lockMismatch, .lockMismatch])
        let problem = try #require(report.problems.first)
        #expect(problem.subject == lock)
        #expect(problem.reason == "it cannot be read (\(reason))")
        #expect(problem.fix == "write it again with `microapp lock \(folder)`, or mend it by hand")
    }

    @Test("a library named twice in a lock is refused, where JSONDecoder kept one of the two silently", .offThePool)
    func libraryNamedTwiceRefused() throws {
        let text = """
            {"version": 1, "libraries": {"libAuth.so": {"feature": "auth", "sha256": "AUTH"},
             "libAuth.so": {"feature": "auth", "sha256": "CHARACTERS"}}}
            """
        let (_, paths, lock) = try Self.folder(lock: text)
        let problem = try #require(PluginSet.load(paths).problems.first)
        #expect(problem.subject == lock)
        #expect(
            problem.reason
                == "it cannot be read (not JSON: line 2, column 2: the key \"libAuth.so\" appears twice in one object)")
    }

    @Test(
        "the record of locked folders reads as written, escapes and all; an entry that is not a string is skipped",
        .offThePool)
    func lockHistoryRead() throws {
        let (folder, _) = try PluginLockTests.lockedFolderWithRealPlugins()
        let other = Scratch.folder("lock-history-other").path
        let history = LockHistory(file: Scratch.folder("lock-history").appendingPathComponent("locked.json").path)
        try history.record(folder)
        try history.record(other)
        #expect(history.folders.count == 2 && history.contains(folder) && history.contains(other))
        let escaped = try #require(String(data: JSONEncoder().encode(history.folders.sorted()), encoding: .utf8))
        #expect(escaped.contains("\\/"), "JSONEncoder escapes slashes: \(escaped)")
        try Data("[7, \(escaped.dropFirst().dropLast()), null]".utf8).write(to: URL(fileURLWithPath: history.file))
        #expect(history.contains(folder) && history.contains(other), "\(history.folders)")
        try Data("[\"cut".utf8).write(to: URL(fileURLWithPath: history.file))
        #expect(history.folders.isEmpty)
    }
}
