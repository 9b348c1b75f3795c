import Foundation
import MicroappDigest
import MicroappLoading
import MicroappPlatform
import MicroappShipping
import TestScratch
import Testing

/// A plugin folder's kept versions and the switch between them, with copies of the real Characters and Auth libraries
/// standing for two versions of one feature (their bytes are what the switch moves; nothing here loads them).
@Suite("Kept versions in a plugin folder")
struct PluginVersionsTests {
    /// The folder of the test runner, where `swift test` put the demo's plugin libraries.
    private static let runnerDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().path

    private static func folder(locked: Bool) throws -> (PluginVersions, running: Data, kept: InstalledVersion) {
        let folder = Scratch.folder("plugin-versions").path
        try FileManager.default.copyItem(
            atPath: "\(runnerDirectory)/libCharacters.so", toPath: folder + "/libCharacters.so")
        let running = try Data(contentsOf: URL(fileURLWithPath: folder + "/libCharacters.so"))
        if locked {
            try PluginLock(libraries: [(folder + "/libCharacters.so", "characters", SHA256.hex(of: running))])
                .write(in: folder)
        }
        let versions = PluginVersions(plugins: folder)
        let other = try Data(contentsOf: URL(fileURLWithPath: "\(runnerDirectory)/libAuth.so"))
        let kept = InstalledVersion(
            feature: "characters", version: 2, library: FileEntry(path: "libCharacters.so", bytes: other),
            channel: "https://example.test/stable", installed: Date())
        #expect(versions.keep(kept, files: [("libCharacters.so", other)]) == nil)
        return (versions, running, kept)
    }

    @Test(
        "a kept version becomes the running library and the lock pins it alone, nothing half-done left behind",
        .offThePool)
    func activationPinsTheNewBytes() throws {
        let (versions, _, kept) = try Self.folder(locked: true)
        #expect(versions.activate(kept) == nil)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: versions.plugins + "/libCharacters.so"))
        #expect(FileEntry(path: "libCharacters.so", bytes: bytes) == kept.library)
        let entry = try #require(try PluginLock.load(in: versions.plugins)?.libraries["libCharacters.so"])
        #expect(entry.sha256 == kept.library.sha256)
        #expect(entry.installing == nil)
        #expect(entry.feature == "characters")
        #expect(PluginSet.discover(in: [versions.plugins]) == [versions.plugins + "/libCharacters.so"])
        #expect(versions.running().first?.version?.library == kept.library)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: versions.plugins).sorted() == [
                ".versions", "libCharacters.so", PluginLock.fileName,
            ])
    }

    @Test("an unlocked folder stays unlocked: an update does not decide to lock it", .offThePool)
    func unlockedFolderStaysUnlocked() throws {
        let (versions, _, kept) = try Self.folder(locked: false)
        #expect(versions.activate(kept) == nil)
        #expect(try PluginLock.load(in: versions.plugins) == nil)
    }

    @Test("a kept library whose bytes changed is refused, and the running library and lock stay", .offThePool)
    func damagedKeptVersionRefused() throws {
        let (versions, running, kept) = try Self.folder(locked: true)
        let lock = try PluginLock.load(in: versions.plugins)
        var damaged = try Data(contentsOf: URL(fileURLWithPath: versions.library(of: kept)))
        damaged[damaged.count / 2] ^= 1
        try damaged.write(to: URL(fileURLWithPath: versions.library(of: kept)))
        let problem = try #require(versions.activate(kept))
        #expect(problem.code == "kept-version-damaged")
        #expect(try Data(contentsOf: URL(fileURLWithPath: versions.plugins + "/libCharacters.so")) == running)
        #expect(try PluginLock.load(in: versions.plugins) == lock)
    }

    @Test("between the lock's two writes, the lock pins the old and the new bytes and nothing else", .offThePool)
    func aLockInTheMiddleOfAnUpdatePinsBoth() throws {
        let text = #"""
            {"version": 1, "libraries": {"libCharacters.so":
                {"feature": "characters", "sha256": "old", "installing": "new"}}}
            """#
        let pinned = try JSONDecoder().decode(PluginLock.self, from: Data(text.utf8))
        #expect(pinned.problem(with: "/p/libCharacters.so", sha256: "old") == nil)
        #expect(pinned.problem(with: "/p/libCharacters.so", sha256: "new") == nil)
        #expect(pinned.problem(with: "/p/libCharacters.so", sha256: "other")?.code == "lock-mismatch")
    }
}
