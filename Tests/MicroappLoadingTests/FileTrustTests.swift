import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import TestPlugins
import TestScratch
import Testing

/// The probe cache and `plugins.lock` are believed only when no one but this user could have written them: the
/// attacks below are a group-writable cache that calls a crashing library usable, and a group-writable lock.
@Suite("Files microapp trusts: the probe cache and plugins.lock")
struct FileTrustTests {
    static func folder(_ name: String) throws -> String {
        let folder = "\(Paths.fixtures)/\(name)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A cache file, with `mode`, in which a crashing library (returned) is marked usable, as an attacker would
    /// edit it; `name` names the library and the folder.
    static func forgedCache(_ name: String, mode: mode_t) throws -> (file: String, library: String) {
        let file = "\(try folder(name))/probe-cache.json"
        let library = try ProbeTests.plugin(name, register: "(__builtin_trap(), MICROAPP_STATUS_OK)")
        var first = PluginScreening(probe: ProbeTests.probe, cache: ProbeCache(file: file))
        #expect(first.verdict(for: library).isBlocked)
        first.cache.save()
        // The record of the library's digest made to say usable, in the file's own form (anyone who can write the
        // file can write that form).
        var forged = ProbeCache(file: file)
        forged.record(.usable, for: library, sha256: try PluginLock.digest(of: library))
        forged.save()
        #expect(chmod(file, mode) == 0)
        return (file, library)
    }

    @Test(
        "a group-writable cache entry marking a crashing library usable is not believed: the library is probed and blocked",
        .offThePool)
    func forgedCacheIgnored() throws {
        let (file, trapping) = try Self.forgedCache("TrapForged", mode: 0o664)
        let cache = ProbeCache(file: file)
        let warning = try #require(cache.distrust)
        #expect(warning.code == .untrustedFile && warning.subject == file)
        #expect(warning.reason.contains("writable by its group") && warning.reason.contains("probed again"))
        #expect(warning.fix == "run `chmod go-w \(file)`")
        var screening = PluginScreening(probe: ProbeTests.probe, cache: cache)
        #expect(screening.verdict(for: trapping).isBlocked)
        #expect(screening.probed == 1)
    }

    @Test(
        "the same edit in a cache only this user can write is believed (the mode is what stops the attack)", .offThePool
    )
    func ownCacheBelieved() throws {
        let (file, trapping) = try Self.forgedCache("TrapOwnCache", mode: 0o600)
        let cache = ProbeCache(file: file)
        #expect(cache.distrust == nil)
        #expect(cache.verdict(for: trapping) == .usable)
    }

    @Test("a cache in a folder writable by others is ignored, naming the folder", .offThePool)
    func cacheInOpenFolder() throws {
        let folder = try Self.folder("open-cache-folder")
        try Data("{}".utf8).write(to: URL(fileURLWithPath: "\(folder)/probe-cache.json"))
        #expect(chmod(folder, 0o777) == 0)
        defer { chmod(folder, 0o700) }
        let warning = try #require(ProbeCache(file: "\(folder)/probe-cache.json").distrust)
        #expect(warning.reason.contains("its folder \(folder) is writable by everyone"))
        #expect(warning.fix == "run `chmod go-w \(folder)`")
    }

    @Test("a group-writable plugins.lock is ignored with a warning, and its libraries count as not pinned", .offThePool)
    func groupWritableLockIgnored() throws {
        let folder = try PluginLockTests.folderWithRealPlugins()
        let auth = "\(folder)/libAuth.so"
        try PluginLock(images: PluginSet.load([auth]).images).write(in: folder)
        let lock = "\(folder)/\(PluginLock.fileName)"
        #expect(chmod(lock, 0o660) == 0)

        let report = PluginSet.load(PluginSet.discover(in: [folder]))
        #expect(report.problems.isEmpty, "an ignored lock refuses nothing: \(report.problems)")
        #expect(report.warnings.map(\.code) == [.untrustedFile])
        #expect(report.warnings.first?.subject == lock)
        #expect(report.warnings.first?.fix == "run `chmod go-w \(lock)`")
        #expect(report.lock(of: auth) == .untrusted("its file \(lock) is writable by its group"))
        let decision = IsolationDecision.decide(
            .auto, for: LibraryTrust(origin: .repository, lock: report.lock(of: auth)))
        #expect(decision.mode == .process)
    }

    @Test(
        "a trusted lock pins its libraries with the isolation its entries set, and locking again keeps the setting",
        .offThePool)
    func lockEntrySetting() throws {
        let folder = try PluginLockTests.folderWithRealPlugins()
        let paths = PluginSet.discover(in: [folder])
        let images = PluginSet.load(paths).images
        var lock = try PluginLock(images: images)
        lock.libraries["libAuth.so"]?.isolation = .process
        try lock.write(in: folder)
        let report = PluginSet.load(paths)
        #expect(report.warnings.isEmpty)
        #expect(report.lock(of: "\(folder)/libAuth.so") == .pinned(setting: .process))
        #expect(report.lock(of: "\(folder)/libCharacters.so") == .pinned(setting: nil))
        #expect(try PluginLock(images: images, keeping: lock).libraries["libAuth.so"]?.isolation == .process)
        #expect(
            try PluginLock(images: images, isolation: .inProcess, keeping: lock).libraries.values.allSatisfy {
                $0.isolation == .inProcess
            })
    }
}
