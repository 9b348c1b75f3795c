import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import TestScratch
import Testing

@Suite("The probe cache's file: its compact form round trips, older caches are read, damaged ones are rebuilt")
struct ProbeCacheFormatTests {
    /// A manifest with every field set, and strings that a length-prefixed or escaped form could get wrong.
    static let manifest = FeatureManifest(
        id: "café-2", version: 7, displayName: "Café: 12 \"✓\" e\nl",
        routes: [
            RouteDeclaration("cafe://home"), RouteDeclaration("cafe://detail/{id}", requiresSession: true),
            RouteDeclaration("cafe://sign-in", isSignIn: true),
        ],
        requirements: [
            Requirement(DependencyKey<Session?>.session(access: .readWrite)),
            Requirement(DependencyKey<Service<Nothing, Nothing>>.service("menu.page", optional: true)),
        ],
        provides: [Provision(DependencyKey<Service<Nothing, Nothing>>.service("cafe.order"), uses: ["menu.page"])],
        hasMocks: true, tab: TabDeclaration(title: "Café", route: "cafe://home", order: -3),
        capabilities: [.network, .scratchFiles])
    static let description = LibraryDescription(manifest: manifest, sdkVersion: .current)
    static let blocked = Problem(
        code: .probeCrashed, subject: "libB.so", reason: "it crashed the probe (signal 11)", fix: "fix it: 0 ≠ 1")
    static let digests = (usable: String(repeating: "a", count: 64), blocked: String(repeating: "b", count: 64))

    /// A cache at `file` holding a usable library with its description and a blocked one, saved.
    static func savedCache(at file: String) {
        var cache = ProbeCache(file: file)
        cache.record(.usable, for: "/plugins/libA.so", sha256: digests.usable, description: description)
        cache.record(.blocked(blocked), for: "/plugins/libB.so", sha256: digests.blocked)
        cache.save()
    }

    /// True when the cache at `file` gives back exactly the two records `savedCache` wrote.
    static func holdsBothRecords(_ file: String) -> Bool {
        let cache = ProbeCache(file: file)
        guard let usable = cache.record(for: digests.usable), let blocked = cache.record(for: digests.blocked) else {
            return false
        }
        return usable.usable && usable.problem == nil && usable.description == description
            && !blocked.usable && blocked.problem == Self.blocked && blocked.description == nil
    }

    @Test(
        "an isolated library's handshake is kept by its path and digest: other bytes have none, the probe records stay, a library gone is dropped",
        .offThePool)
    func handshakeRecords() throws {
        let folder = try FileTrustTests.folder("cache-handshakes")
        let (file, library, gone) = (folder + "/probe-cache.json", folder + "/libC.so", folder + "/libGone.so")
        try Data().write(to: URL(fileURLWithPath: library))
        Self.savedCache(at: file)
        var cache = ProbeCache(file: file)
        #expect(cache.description(of: library, sha256: Self.digests.blocked) == nil)
        cache.recordHandshake(Self.description, for: library, sha256: Self.digests.blocked)
        cache.recordHandshake(Self.description, for: gone, sha256: Self.digests.blocked)
        cache.save()
        let read = ProbeCache(file: file)
        #expect(read.description(of: library, sha256: Self.digests.blocked) == Self.description)
        #expect(read.description(of: library, sha256: String(repeating: "c", count: 64)) == nil)
        #expect(read.description(of: gone, sha256: Self.digests.blocked) == nil)
        // A blocked probe record is no description; a usable one is, whichever path asks.
        #expect(read.record(for: Self.digests.blocked)?.usable == false)
        #expect(read.description(of: "/elsewhere/libA.so", sha256: Self.digests.usable) == Self.description)
        #expect(Self.holdsBothRecords(file))
    }

    @Test(
        "two hosts that read the cache before either saved keep each other's records: each save writes its own over the file as it is then",
        .offThePool)
    func savesMerge() throws {
        let folder = try FileTrustTests.folder("cache-merge")
        let (file, library) = (folder + "/probe-cache.json", folder + "/libC.so")
        try Data().write(to: URL(fileURLWithPath: library))
        var first = ProbeCache(file: file)
        var second = ProbeCache(file: file)
        first.record(.usable, for: "/plugins/libA.so", sha256: Self.digests.usable, description: Self.description)
        second.record(.blocked(Self.blocked), for: "/plugins/libB.so", sha256: Self.digests.blocked)
        second.recordHandshake(Self.description, for: library, sha256: Self.digests.blocked)
        first.save()
        second.save()
        #expect(Self.holdsBothRecords(file))
        #expect(ProbeCache(file: file).description(of: library, sha256: Self.digests.blocked) == Self.description)

        // What one forgets goes, what it did not touch stays.
        var forgetting = ProbeCache(file: file)
        var other = ProbeCache(file: file)
        #expect(forgetting.forgetLibraries { $0.hasSuffix("/libB.so") } == [Self.digests.blocked])
        other.recordHandshake(Self.description, for: library, sha256: Self.digests.usable)
        forgetting.save()
        other.save()
        let read = ProbeCache(file: file)
        #expect(read.record(for: Self.digests.blocked) == nil)
        #expect(read.record(for: Self.digests.usable)?.usable == true)
        #expect(read.description(of: library, sha256: Self.digests.usable) == Self.description)
    }

    @Test(
        "hosts saving at the same moment lose no record: each save reads and writes the file under a lock", .offThePool)
    func concurrentSaves() throws {
        let file = try FileTrustTests.folder("cache-concurrent") + "/probe-cache.json"
        let digests = (0..<12).map { String(repeating: String($0, radix: 16), count: 64) }
        let caches = digests.enumerated().map { index, digest in
            var cache = ProbeCache(file: file)
            cache.record(.usable, for: "/plugins/lib\(index).so", sha256: digest, description: Self.description)
            return cache
        }
        DispatchQueue.concurrentPerform(iterations: caches.count) { caches[$0].save() }
        let read = ProbeCache(file: file)
        #expect(digests.filter { read.record(for: $0)?.usable == true } == digests)
    }

    @Test(
        "records round trip in the compact form, which is not JSON: verdicts, every manifest field, the problem",
        .offThePool)
    func roundTrip() throws {
        let file = try FileTrustTests.folder("cache-round-trip") + "/probe-cache.json"
        Self.savedCache(at: file)
        #expect(Self.holdsBothRecords(file))
        let bytes = try #require(FileManager.default.contents(atPath: file))
        #expect(bytes.starts(with: Array("microapp probe cache 4 ".utf8)))
        #expect((try? JSONSerialization.jsonObject(with: bytes)) == nil)
        // A warm start that records nothing does not write the file again.
        let before = try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date
        ProbeCache(file: file).save()
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date == before)
    }

    /// The JSON an earlier build wrote: `{"libraries":…,"records":…,"version":3}`, its keys sorted.
    struct JSONCache: Codable {
        var libraries: [String: String]
        var records: [String: JSONRecord]
        var version: Int
    }

    /// A record as an earlier build wrote it (`ProbeRecord`'s fields).
    struct JSONRecord: Codable {
        var usable: Bool
        var problem: Problem?
        var description: LibraryDescription?
    }

    @Test(
        "a cache an earlier build wrote (version 3, JSON) is read, and written again in the compact form", .offThePool)
    func oldCacheIsRead() throws {
        let file = try FileTrustTests.folder("cache-old") + "/probe-cache.json"
        let old = JSONCache(
            libraries: ["/plugins/libA.so": Self.digests.usable, "/plugins/libB.so": Self.digests.blocked],
            records: [
                Self.digests.usable: JSONRecord(usable: true, description: Self.description),
                Self.digests.blocked: JSONRecord(usable: false, problem: Self.blocked),
            ], version: 3)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(old).write(to: URL(fileURLWithPath: file))
        #expect(Self.holdsBothRecords(file))
        // Read once as JSON: the first save writes the compact form, which gives the same records.
        ProbeCache(file: file).save()
        #expect(try #require(FileManager.default.contents(atPath: file)).starts(with: Array("microapp ".utf8)))
        #expect(Self.holdsBothRecords(file))
        // An older version's JSON is not guessed at: an empty cache (those libraries are probed again).
        var older = old
        older.version = 2
        try encoder.encode(older).write(to: URL(fileURLWithPath: file))
        #expect(ProbeCache(file: file).record(for: Self.digests.usable) == nil)
    }

    @Test(
        "a cache cut short or with any byte changed is an empty one: never a crash, never another record", .offThePool)
    func damagedCacheIsEmpty() throws {
        let file = try FileTrustTests.folder("cache-damaged") + "/probe-cache.json"
        Self.savedCache(at: file)
        let whole = try #require(FileManager.default.contents(atPath: file))
        func isEmpty(_ bytes: Data) throws -> Bool {
            try bytes.write(to: URL(fileURLWithPath: file))
            let cache = ProbeCache(file: file)
            return cache.record(for: Self.digests.usable) == nil && cache.record(for: Self.digests.blocked) == nil
        }
        for length in stride(from: 0, to: whole.count, by: 3) {
            #expect(try isEmpty(whole.prefix(length)), "cut to \(length) of \(whole.count) bytes")
        }
        for offset in stride(from: 0, to: whole.count, by: 5) {
            var changed = whole
            changed[offset] ^= 0x04
            #expect(try isEmpty(changed), "byte \(offset) of \(whole.count) changed")
        }
    }

    @Test("a damaged cache is rebuilt: the library is probed again and its record written afresh", .offThePool)
    func damagedCacheIsRebuilt() throws {
        let (folder, auth) = try ProbeRecordTests.authCopy("cache-rebuilt")
        let file = "\(folder)/probe-cache.json"
        var first = PluginScreening(probe: ProbeTests.probe, cache: ProbeCache(file: file))
        let copy = try #require(PluginSet.checkLocks([auth], enforcing: false).copies[auth])
        #expect(first.verdict(for: copy) == .usable)
        first.cache.save()
        let whole = try #require(FileManager.default.contents(atPath: file))
        try whole.prefix(whole.count - 2).write(to: URL(fileURLWithPath: file))

        var again = PluginScreening(probe: ProbeTests.probe, cache: ProbeCache(file: file))
        #expect(again.verdict(for: copy) == .usable)
        #expect(again.probed == 1)
        again.cache.save()
        #expect(ProbeCache(file: file).record(for: copy.sha256)?.description?.manifest.id == "auth")
    }
}
