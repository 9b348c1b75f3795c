import Foundation
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import TestPlugins
import TestScratch
import Testing

@Suite("plugins.lock")
struct PluginLockTests {
    /// A folder with copies of the real Auth and Characters libraries.
    static func folderWithRealPlugins() throws -> String {
        let folder = "\(Paths.fixtures)/lock-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["libAuth.so", "libCharacters.so"] {
            try FileManager.default.copyItem(atPath: "\(Paths.runnerDirectory)/\(name)", toPath: "\(folder)/\(name)")
        }
        return folder
    }

    /// `folderWithRealPlugins()` locked: the folder and its libraries' paths.
    static func lockedFolderWithRealPlugins() throws -> (folder: String, paths: [String]) {
        let folder = try folderWithRealPlugins()
        let paths = PluginSet.discover(in: [folder])
        try PluginLock(images: PluginSet.load(paths).images).write(in: folder)
        return (folder, paths)
    }

    @Test("with a lock, matching libraries load and a changed one is refused with the fix", .offThePool)
    func changedLibraryRefused() throws {
        let folder = try Self.folderWithRealPlugins()
        let paths = PluginSet.discover(in: [folder])
        try PluginLock(images: PluginSet.load(paths).images).write(in: folder)
        #expect(PluginSet.load(paths).problems.isEmpty)

        // Replace Characters with different bytes at a new inode (never write over a loadable file in place).
        let characters = "\(folder)/libCharacters.so"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: characters))
        bytes.append(0)
        try FileManager.default.removeItem(atPath: characters)
        try bytes.write(to: URL(fileURLWithPath: characters))
        let report = PluginSet.load(paths)
        let problem = try #require(report.problems.first)
        #expect(report.problems.count == 1)
        #expect(problem.code == .lockMismatch)
        #expect(problem.subject == characters)
        #expect(problem.reason.contains("differs from"))
        #expect(problem.fix.contains("microapp lock \(folder)"))
        #expect(report.images.map(\.manifest.id) == ["auth"])
    }

    @Test("with a lock, a library that is not in it is refused", .offThePool)
    func unlistedLibraryRefused() throws {
        let folder = try Self.folderWithRealPlugins()
        let auth = "\(folder)/libAuth.so"
        try PluginLock(images: PluginSet.load([auth]).images).write(in: folder)
        let report = PluginSet.load(PluginSet.discover(in: [folder]))
        #expect(report.problems.map(\.code) == [.lockMismatch])
        #expect(report.problems.first?.reason == "it is not in plugins.lock")
    }

    @Test(
        "with a lock, a library that cannot be read to check it is refused, naming the file, the reason and the fix",
        .offThePool)
    func unreadableLibraryRefused() throws {
        let (folder, paths) = try Self.lockedFolderWithRealPlugins()
        // Tests may run as root, whom no file mode stops: a folder in the library's place cannot be read either.
        let characters = "\(folder)/libCharacters.so"
        try FileManager.default.removeItem(atPath: characters)
        try FileManager.default.createDirectory(atPath: characters, withIntermediateDirectories: false)
        // Refused when it is opened, before the lock is read: a library is read once, and only a regular file is.
        let report = PluginSet.load(paths)
        #expect(report.problems.map(\.code) == [.notSharedObject])
        let problem = try #require(report.problems.first)
        #expect(problem.subject == characters)
        #expect(problem.reason == "it is not a regular file")
        #expect(problem.fix.contains("lib<Feature>.so files"))
        #expect(report.images.map(\.manifest.id) == ["auth"])
    }

    @Test("a folder that had a lock and has none now loads with a warning naming the lock and the fix", .offThePool)
    func deletedLockWarned() throws {
        let folder = try Self.folderWithRealPlugins()
        let history = LockHistory(file: Scratch.folder("lock-history").appendingPathComponent("locked.json").path)
        let paths = PluginSet.discover(in: [folder])
        try PluginLock(images: PluginSet.load(paths).images).write(in: folder)
        let locked = PluginSet.load(paths, lockHistory: history)
        #expect(locked.problems.isEmpty && locked.warnings.isEmpty)
        #expect(history.contains(folder))

        try FileManager.default.removeItem(atPath: "\(folder)/\(PluginLock.fileName)")
        let unlocked = PluginSet.load(paths, lockHistory: history)
        #expect(unlocked.problems.isEmpty)
        #expect(unlocked.images.count == 2)
        #expect(unlocked.warnings.map(\.code) == [.lockMissing])
        let warning = try #require(unlocked.warnings.first)
        #expect(warning.subject == "\(folder)/plugins.lock")
        #expect(warning.reason.contains("had a plugins.lock before and has none now"))
        #expect(
            warning.fix.contains("microapp lock \(folder)") && warning.fix.contains("microapp lock \(folder) --forget"))

        // Removed on purpose: forgotten, the folder loads quietly; a folder that no longer exists is forgotten too.
        let gone = Scratch.folder("lock-history-gone").path
        try history.record(gone)
        #expect(history.contains(gone))
        try FileManager.default.removeItem(atPath: gone)
        #expect(try history.forget(folder))
        #expect(!history.contains(folder) && !history.contains(gone), "\(history.folders)")
        #expect(PluginSet.load(paths, lockHistory: history).warnings.isEmpty)
        #expect(try !history.forget(folder), "nothing left to forget")
    }

    @Test(
        "hosts recording locked folders at the same moment keep every folder: each edit is made under a lock",
        .offThePool)
    func historyKeepsConcurrentRecords() throws {
        let history = LockHistory(file: Scratch.folder("lock-history").appendingPathComponent("locked.json").path)
        let folders = (0..<12).map { Scratch.folder("locked-\($0)").path }
        DispatchQueue.concurrentPerform(iterations: folders.count) { _ = try? history.record(folders[$0]) }
        #expect(folders.filter(history.contains) == folders)
    }

    @Test("a truncated library in a locked folder is refused as truncated, not as one to lock again", .offThePool)
    func truncatedLockedLibrary() throws {
        let (folder, paths) = try Self.lockedFolderWithRealPlugins()
        let auth = "\(folder)/libAuth.so"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: auth))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: auth))
        let report = PluginSet.load(paths)
        let problem = try #require(report.problems.first { $0.subject == auth }, "\(report.problems)")
        #expect(problem.code == .notSharedObject)
        #expect(problem.reason.hasPrefix("it is truncated"), "\(problem.reason)")
        #expect(!problem.fix.contains("microapp lock"), "\(problem.fix)")
        #expect(report.images.map(\.manifest.id) == ["characters"])
    }

    @Test("a folder that never had a lock loads without a warning and is not recorded", .offThePool)
    func neverLockedFolderQuiet() throws {
        let folder = try Self.folderWithRealPlugins()
        let history = LockHistory(file: Scratch.folder("lock-history").appendingPathComponent("locked.json").path)
        let report = PluginSet.load(PluginSet.discover(in: [folder]), lockHistory: history)
        #expect(report.problems.isEmpty && report.warnings.isEmpty)
        #expect(history.folders.isEmpty)
    }

    @Test("the lock records each library's SHA-256 and feature id", .offThePool)
    func lockContents() throws {
        let folder = try Self.folderWithRealPlugins()
        let lock = try PluginLock(images: PluginSet.load(PluginSet.discover(in: [folder])).images)
        #expect(lock.libraries["libAuth.so"]?.feature == "auth")
        #expect(lock.libraries["libAuth.so"]?.sha256 == (try PluginLock.digest(of: "\(folder)/libAuth.so")))
        #expect(lock.libraries["libAuth.so"]?.sha256.count == 64)
    }
}
