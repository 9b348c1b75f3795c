import CMicroappABI
import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import TestPlugins
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("What a library says about itself is recorded by its probe and read as data afterwards")
struct ProbeRecordTests {
    /// A folder of its own holding a copy of the real `libAuth.so` (a new inode: never loaded before).
    static func authCopy(_ label: String) throws -> (folder: String, library: String) {
        let folder = "\(Paths.fixtures)/\(label)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let library = "\(folder)/libAuth.so"
        try FileManager.default.copyItem(atPath: "\(Paths.runnerDirectory)/libAuth.so", toPath: library)
        return (folder, library)
    }

    /// Whether a file is mapped in this process (`/proc/self/maps` names it): a library never mapped ran no code here.
    static func isMapped(_ file: String) throws -> Bool {
        // Read to its end: String(contentsOfFile:) stops after /proc's first page, where a later mapping is not.
        let maps = try #require(FileHandle(forReadingAtPath: "/proc/self/maps")).readToEnd() ?? Data()
        return String(decoding: maps, as: UTF8.self).contains(file)
    }

    @Test("the probe records the manifest and SDK version, keyed by the digest of the bytes it probed", .offThePool)
    func probeWritesTheRecord() throws {
        let (folder, auth) = try Self.authCopy("record-written")
        var screening = PluginScreening(probe: ProbeTests.probe, cache: ProbeCache(file: "\(folder)/cache.json"))
        let check = PluginSet.checkLocks([auth], enforcing: false)
        let copy = try #require(check.copies[auth])
        #expect(screening.verdict(for: copy) == .usable)
        screening.cache.save()

        let record = try #require(ProbeCache(file: "\(folder)/cache.json").record(for: copy.sha256))
        #expect(record.usable)
        #expect(record.description?.manifest.id == "auth")
        #expect(record.description?.sdk == SDKVersion.current)
        #expect(ProbeCache(file: "\(folder)/cache.json").record(for: String(repeating: "0", count: 64)) == nil)
    }

    @Test(
        "a start after the probe maps the library with the recorded manifest and does not decode its own", .offThePool)
    func runUsesTheRecordedManifest() throws {
        let (folder, auth) = try Self.authCopy("record-run")
        let cacheFile = "\(folder)/cache.json"
        var first = PluginScreening(probe: ProbeTests.probe, cache: ProbeCache(file: cacheFile))
        let report = PluginSet.load([auth], enforcingLocks: false, screening: &first)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(first.probed == 1)
        let digest = try #require(PluginSet.checkLocks([auth], enforcing: false).copies[auth]?.sha256)
        // The record says something the library's own manifest does not: what loads is what was recorded.
        var recorded = try #require(first.cache.record(for: digest)?.description)
        recorded.manifest.displayName = "Auth as recorded"
        first.cache.record(.usable, for: auth, sha256: digest, description: recorded)
        first.cache.save()

        var warm = PluginScreening(probe: ProbeTests.probe, cache: ProbeCache(file: cacheFile))
        let again = PluginSet.load([auth], enforcingLocks: false, screening: &warm)
        #expect(warm.probed == 0)
        #expect(again.problems.isEmpty, "\(again.problems)")
        let image = try #require(again.images.first)
        #expect(image.manifest.displayName == "Auth as recorded")
        #expect(image.isMapped)
        // The entry still ran: its descriptor registers the feature.
        #expect(throws: Never.self) { try PluginLoader.register(image).get() }
    }

    @Test(
        "a start with the record asks the entry for no manifest; a later load without one has the entry make it",
        .offThePool)
    func recordedStartBuildsNoManifest() throws {
        let (folder, auth) = try Self.authCopy("record-no-manifest")
        let cacheFile = "\(folder)/cache.json"
        var first = PluginScreening(probe: ProbeTests.probe, cache: ProbeCache(file: cacheFile))
        let copy = try #require(PluginSet.checkLocks([auth], enforcing: false).copies[auth])
        #expect(first.verdict(for: copy) == .usable)
        first.cache.save()

        var warm = PluginScreening(probe: ProbeTests.probe, cache: ProbeCache(file: cacheFile))
        let report = PluginSet.load([auth], enforcingLocks: false, screening: &warm)
        #expect(report.problems.isEmpty, "\(report.problems)")
        let image = try #require(report.images.first)
        let manifestField = MemoryLayout<microapp_descriptor>.offset(of: \.manifest_json)!
        // The plugin neither built nor encoded its manifest: the host had it as data.
        #expect(image.fields?.text(at: manifestField, limit: ManifestCoding.maximumSize) == .null)
        #expect(image.manifest.id == "auth")
        #expect(throws: Never.self) { try PluginLoader.register(image).get() }

        // The same image loaded by a caller that has no record: its entry makes the manifest now.
        let again = try PluginLoader.load(image.file).get()
        #expect(again.manifest.id == "auth")
        guard case .text(let json)? = again.fields?.text(at: manifestField, limit: ManifestCoding.maximumSize) else {
            Issue.record("the descriptor still has no manifest after an entry call that wanted one")
            return
        }
        #expect(try ManifestCoding.decode(json) == image.manifest)
    }

    @Test("an inspection of a recorded library maps none of it, so none of its code runs in the host")
    func inspectionRunsNoPluginCode() async throws {
        let (folder, auth) = try Self.authCopy("record-inspect")
        let cacheFile = "\(folder)/cache.json"
        // The first start's probe, in its child: it records what the library said about itself.
        var first = PluginScreening(probe: ProbeTests.probe, cache: ProbeCache(file: cacheFile))
        let check = PluginSet.checkLocks([auth], enforcing: false)
        let copy = try #require(check.copies[auth])
        #expect(first.verdict(for: copy) == .usable)
        first.cache.save()

        let (report, after) = await PluginSet.loadOffActor(
            check, screening: PluginScreening(probe: ProbeTests.probe, cache: ProbeCache(file: cacheFile)),
            mapping: false)
        #expect(after?.probed == 0)
        #expect(report.problems.isEmpty, "\(report.problems)")
        let image = try #require(report.images.first)
        #expect(image.manifest.id == "auth")
        #expect(image.manifest.routes.map(\.pattern).contains("auth://sign-in"))
        #expect(!image.isMapped)
        #expect(try !Self.isMapped(copy.path))
        #expect(try !Self.isMapped(auth))
    }

    @Test(
        "a library rewritten at the same path is hashed again and probed again: the old record does not answer",
        .offThePool)
    func changedLibraryIsProbedAgain() throws {
        let (folder, auth) = try Self.authCopy("record-changed")
        let store = try #require(LibraryStore(folder: "\(folder)/store"))
        let cacheFile = "\(folder)/cache.json"
        var screening = PluginScreening(probe: ProbeTests.probe, cache: ProbeCache(file: cacheFile))
        let before = try #require(PluginSet.checkLocks([auth], enforcing: false, store: store).copies[auth])
        #expect(screening.verdict(for: before) == .usable)
        #expect(screening.probed == 1)

        // Same path, same inode, new bytes (a padded tail still loads).
        let handle = try #require(FileHandle(forWritingAtPath: auth))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: 0, count: 16))
        try handle.close()
        let after = try #require(PluginSet.checkLocks([auth], enforcing: false, store: store).copies[auth])
        #expect(after.sha256 != before.sha256)
        #expect(after.path != before.path)
        #expect(screening.cache.record(for: after.sha256) == nil)
        #expect(screening.verdict(for: after) == .usable)
        #expect(screening.probed == 2)
    }
}

@Suite("Each library is read and hashed once; an unchanged one not at all on the next start")
struct LibraryStoreTests {
    /// Waits until the file at `path` changed over a second ago: the store remembers no younger file. (Its whole
    /// ctime counts: with the seconds alone, a file changed late in a second was "aged" half a second later.)
    static func age(_ path: String) async throws {
        var info = stat()
        repeat {
            try await Task.sleep(for: .milliseconds(100))
            #expect(stat(path, &info) == 0)
        } while Date().timeIntervalSince1970 < Double(info.st_ctim.tv_sec) + Double(info.st_ctim.tv_nsec) / 1e9 + 1.5
    }

    /// What `body` answers and how many bytes this thread read from files meanwhile (`rchar` of
    /// `/proc/thread-self/io`; mapped pages are not counted): hashing a library reads all of it, a lookup none.
    static func bytesRead<Value>(during body: () throws -> Value) throws -> (Value, Int) {
        func readSoFar() throws -> Int {
            let text = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("rchar:") })
            return try #require(Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)))
        }
        let before = try readSoFar()
        let value = try body()
        return (value, try readSoFar() - before)
    }

    /// The size of the file at `path`.
    static func size(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    @Test("the same digest serves lock, probe cache and copy: one read and hash per library per start", .offThePool)
    func hashedOncePerStart() throws {
        let (folder, auth) = try ProbeRecordTests.authCopy("hash-once")
        let lock = PluginLock(
            libraries: [(path: auth, feature: "auth", sha256: try PluginLock.digest(of: auth))])
        try lock.write(in: folder)
        var screening = PluginScreening(probe: ProbeTests.probe, cache: ProbeCache(file: "\(folder)/cache.json"))
        let (report, read) = try Self.bytesRead { PluginSet.load([auth], screening: &screening) }
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.images.map(\.manifest.id) == ["auth"])
        // Read once (and hashed while copied); a second read for the lock or the probe cache would double it.
        let size = try Self.size(auth)
        #expect(read >= size && read < 2 * size, "\(read) bytes read for a library of \(size)")
    }

    @Test("an unchanged library loads its stored copy unread; a changed one is copied and hashed again")
    func unchangedLibraryIsNotRead() async throws {
        let (folder, auth) = try ProbeRecordTests.authCopy("store-warm")
        try await Self.age(auth)
        let store = try #require(LibraryStore(folder: "\(folder)/store"))
        let size = try Self.size(auth)
        let (cold, coldRead) = try Self.bytesRead { try LibraryCopy.make(auth, store: store).get() }
        #expect(coldRead >= size)
        #expect(cold.sha256 == (try PluginLock.digest(of: auth)))
        #expect(cold.path.hasPrefix(store.folder + "/"))

        let (warm, warmRead) = try Self.bytesRead { try LibraryCopy.make(auth, store: store).get() }
        #expect(warmRead < size / 100, "\(warmRead) bytes of a \(size)-byte library read by a warm lookup")
        #expect(warm == cold)
        // The copy is what was hashed, read-only, in a folder only this user opens.
        #expect(try PluginLock.digest(of: warm.path) == warm.sha256)
        #expect(try FileManager.default.attributesOfItem(atPath: warm.path)[.posixPermissions] as? Int == 0o500)
        #expect(try FileManager.default.attributesOfItem(atPath: store.folder)[.posixPermissions] as? Int == 0o700)

        // A chmod moves the ctime: the identity no longer matches, so the bytes are read again.
        #expect(chmod(auth, 0o755) == 0)
        let (again, againRead) = try Self.bytesRead { try LibraryCopy.make(auth, store: store).get() }
        #expect(againRead >= size)
        #expect(again.sha256 == cold.sha256)
    }

    @Test("a library younger than a second is copied and hashed on every start until it is older", .offThePool)
    func youngLibraryIsNotRemembered() throws {
        let (folder, auth) = try ProbeRecordTests.authCopy("store-young")
        let store = try #require(LibraryStore(folder: "\(folder)/store"))
        // Just written: a write in the same tick could hide behind its identity.
        _ = try LibraryCopy.make(auth, store: store).get()
        let (_, read) = try Self.bytesRead { try LibraryCopy.make(auth, store: store).get() }
        #expect(read >= (try Self.size(auth)))
    }

    @Test("a store another user could write is not used", .offThePool)
    func untrustedStoreIsRefused() throws {
        let folder = "\(Paths.fixtures)/store-open-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(chmod(folder, 0o777) == 0)
        #expect(LibraryStore(folder: folder) == nil)
    }
}
