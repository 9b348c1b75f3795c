import Foundation
import MicroappIsolation
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import TestPlugins
import TestScratch
import Testing

/// What is checked is what runs: a library is read once, its copy is hashed, checked and the only file mapped, so a
/// file put in its place after the check (a rename over it, a symbolic link's new target) never runs.
@Suite("Checked bytes are the bytes that run")
struct CheckedBytesTests {
    /// Puts the real Characters library at `path` as a new file renamed over it, as a build or an attacker would.
    static func renameCharacters(over path: String) throws {
        let staged = path + ".new"
        try FileManager.default.copyItem(atPath: "\(Paths.runnerDirectory)/libCharacters.so", toPath: staged)
        #expect(rename(staged, path) == 0)
    }

    @Test("a library renamed over the locked one after the lock check does not run: the checked bytes load")
    func renameAfterLockCheckLoadsCheckedBytes() async throws {
        let folder = try Paths.folder(with: "libAuth.so")
        let auth = "\(folder)/libAuth.so"
        let pinned = try PluginLock.digest(of: auth)
        try PluginLock(libraries: [(path: auth, feature: "auth", sha256: pinned)]).write(in: folder)

        let check = PluginSet.checkLocks([auth])
        #expect(check.problems.isEmpty)
        #expect(check.allowed == [auth])
        try Self.renameCharacters(over: auth)
        let report = await PluginSet.loadOffActor(check, screening: nil).report

        #expect(report.problems.isEmpty)
        let image = try #require(report.images.first)
        #expect(image.manifest.id == "auth")
        #expect(image.path == auth)
        #expect(image.file != auth)
        #expect(try PluginLock.digest(of: image.file) == pinned)
        // The next start reads the new file and refuses it.
        #expect(PluginSet.checkLocks([auth]).problems.map(\.code) == [.lockMismatch])
    }

    @Test("a symbolic link's target replaced after the check never runs: the target's checked bytes load")
    func symlinkTargetReplacedAfterCheck() async throws {
        let targets = try Paths.folder(with: "libAuth.so")
        let folder = "\(Paths.fixtures)/linked-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let link = "\(folder)/libAuth.so"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "\(targets)/libAuth.so")
        let pinned = try PluginLock.digest(of: link)
        try PluginLock(libraries: [(path: link, feature: "auth", sha256: pinned)]).write(in: folder)

        let check = PluginSet.checkLocks([link])
        #expect(check.problems.isEmpty)
        let copy = try #require(check.copies[link])
        #expect(copy.sha256 == pinned)
        // The copy is the target's bytes, a file of its own: not a link that follows the target.
        var info = stat()
        #expect(lstat(copy.path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
        try Self.renameCharacters(over: "\(targets)/libAuth.so")
        let report = await PluginSet.loadOffActor(check, screening: nil).report

        #expect(report.images.map(\.manifest.id) == ["auth"])
        #expect(report.problems.isEmpty)
    }

    @Test("an isolated child maps the checked copy of a symbolic link's target, not a target replaced afterwards")
    @MainActor
    func isolatedChildMapsCheckedCopy() async throws {
        let targets = try Paths.folder(with: "libAuth.so")
        let folder = "\(Paths.fixtures)/linked-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let link = "\(folder)/libAuth.so"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "\(targets)/libAuth.so")

        let check = await BlockingWork.run { PluginSet.checkLocks([link]) }
        let copy = try #require(check.copies[link])
        try Self.renameCharacters(over: "\(targets)/libAuth.so")
        let launched = await IsolatedPlugin.launch(
            link, prepared: copy, executable: "\(Paths.runnerDirectory)/microapp",
            log: IsolationLog(environment: .process))
        let plugin = try launched.get()
        defer { plugin.stop() }
        #expect(plugin.manifest.id == "auth")
        #expect(plugin.path == link)
    }

    @Test(
        "a library that is not a regular file, or writable by others, is refused before anything reads it", .offThePool)
    func refusedBeforeCopy() throws {
        let folder = try Paths.folder(with: "libAuth.so")
        let fifo = "\(folder)/libFifo.so"
        #expect(mkfifo(fifo, 0o600) == 0)
        // O_NONBLOCK: a FIFO with no writer must not hang the check.
        let notRegular = PluginSet.checkLocks([fifo])
        #expect(notRegular.problems.map(\.code) == [.notSharedObject])
        let auth = "\(folder)/libAuth.so"
        #expect(chmod(auth, 0o666) == 0)
        let writable = PluginSet.checkLocks([auth])
        #expect(writable.problems.map(\.code) == [.unsafePermissions])
        #expect(writable.allowed.isEmpty)
    }
}
