import Foundation
import MicroappHost
import MicroappSDK
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

    @Test("with a lock, matching libraries load and a changed one is refused with the fix")
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

    @Test("with a lock, a library that is not in it is refused")
    func unlistedLibraryRefused() throws {
        let folder = try Self.folderWithRealPlugins()
        let auth = "\(folder)/libAuth.so"
        try PluginLock(images: PluginSet.load([auth]).images).write(in: folder)
        let report = PluginSet.load(PluginSet.discover(in: [folder]))
        #expect(report.problems.map(\.code) == [.lockMismatch])
        #expect(report.problems.first?.reason == "it is not in plugins.lock")
    }

    @Test("the lock records each library's SHA-256 and feature id")
    func lockContents() throws {
        let folder = try Self.folderWithRealPlugins()
        let lock = try PluginLock(images: PluginSet.load(PluginSet.discover(in: [folder])).images)
        #expect(lock.libraries["libAuth.so"]?.feature == "auth")
        #expect(lock.libraries["libAuth.so"]?.sha256 == (try PluginLock.digest(of: "\(folder)/libAuth.so")))
        #expect(lock.libraries["libAuth.so"]?.sha256.count == 64)
    }
}
