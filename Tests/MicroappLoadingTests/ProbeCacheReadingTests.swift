import Foundation
import MicroappCore
import MicroappSDK
import TestPlugins
import TestScratch
import Testing

@testable import MicroappLoading

@Suite("The probe cache read by hand: what it reads, the Codable walk reads the same; what it does not, the walk reads")
struct ProbeCacheReadingTests {
    typealias Stored = ProbeCache.Stored

    /// The file's records as the `Codable` walk reads them (the one reader before the hand reader).
    static func walked(_ body: [UInt8]) -> Stored? {
        try? CompactCoding.decode(ProbeCache.Listed.self, from: body).stored
    }

    /// What follows the first line of the cache `file`.
    static func body(of file: String) throws -> [UInt8] {
        let bytes = try #require(FileManager.default.contents(atPath: file))
        return try #require(ProbeCache.unframed(Array(bytes)))
    }

    /// `body` framed as the cache's own form and written to `file`.
    static func write(_ body: [UInt8], to file: String) throws {
        try Data(ProbeCache.framed(body)).write(to: URL(fileURLWithPath: file))
    }

    /// A cache at `file` holding real libraries' records from their sandboxed probes (Search provides a service and
    /// has a tab, Auth has the sign-in route), the record of every-field manifest, a blocked library and a
    /// handshake; returns the real libraries' digests.
    static func savedCache(at file: String) throws -> [String] {
        let folder = (file as NSString).deletingLastPathComponent
        let libraries = try ["libSearch.so", "libAuth.so"].map { name in
            try FileManager.default.copyItem(atPath: "\(Paths.runnerDirectory)/\(name)", toPath: "\(folder)/\(name)")
            return "\(folder)/\(name)"
        }
        var screening = PluginScreening(probe: ProbeTests.probe, cache: ProbeCache(file: file))
        let copies = PluginSet.checkLocks(libraries, enforcing: false).copies
        let digests = try libraries.map { library in
            let copy = try #require(copies[library])
            #expect(screening.verdict(for: copy) == .usable)
            return copy.sha256
        }
        let full = ProbeCacheFormatTests.self
        screening.cache.record(
            .usable, for: "/plugins/libA.so", sha256: full.digests.usable, description: full.description)
        screening.cache.record(.blocked(full.blocked), for: "/plugins/libB.so", sha256: full.digests.blocked)
        screening.cache.recordHandshake(full.description, for: libraries[0], sha256: digests[0])
        screening.cache.save()
        return digests
    }

    @Test(
        "real libraries' records, a manifest with every field, a blocked library and a handshake are read by hand, as the walk reads them",
        .offThePool)
    func readByHand() throws {
        let file = try FileTrustTests.folder("cache-by-hand") + "/probe-cache.json"
        let digests = try Self.savedCache(at: file)
        let body = try Self.body(of: file)
        let byHand = try #require(ProbeCache.handRead(body))
        #expect(byHand == Self.walked(body))

        let search = try #require(byHand.records[digests[0]]?.description?.manifest)
        #expect(search.id == "search" && search.provides.map(\.key) == ["search.recent-summary"])
        #expect(search.requirements.count == 5 && search.requirements.allSatisfy { $0.shape != nil })
        #expect(search.tab?.title == "Search")
        #expect(byHand.records[digests[1]]?.description?.manifest.routes.contains(where: \.isSignIn) == true)
        #expect(byHand.records[ProbeCacheFormatTests.digests.usable]?.description == ProbeCacheFormatTests.description)
        #expect(byHand.handshakes?.count == 1)
        #expect(ProbeCacheFormatTests.holdsBothRecords(file))
    }

    @Test(
        "what the hand reader does not know is read by the walk as before: an empty capability list, a key it does not know",
        .offThePool)
    func walkReadsTheRest() throws {
        let file = try FileTrustTests.folder("cache-walked") + "/probe-cache.json"
        // Only a manifest decoded from its JSON holds an empty list (the SDK's setter makes it none); the library's
        // own manifest, compared with its record, must come back the same value.
        var json = try ManifestCoding.encode(ProbeCacheFormatTests.manifest)
        json = json.replacingOccurrences(
            of: #""capabilities":["network","files:scratch"]"#, with: #""capabilities":[]"#)
        #expect(json.contains(#""capabilities":[]"#))
        let empty = try JSONDecoder().decode(FeatureManifest.self, from: Data(json.utf8))
        var none = empty
        none.capabilities = []
        #expect(empty != none)
        var cache = ProbeCache(file: file)
        let description = LibraryDescription(manifest: empty, sdkVersion: .current)
        cache.record(
            .usable, for: "/plugins/libE.so", sha256: ProbeCacheFormatTests.digests.usable, description: description)
        cache.save()
        let body = try Self.body(of: file)
        #expect(ProbeCache.handRead(body) == nil)
        #expect(ProbeCache(file: file).record(for: ProbeCacheFormatTests.digests.usable)?.description == description)

        // A key the hand reader does not ask for, which the walk passes over.
        _ = try Self.savedCache(at: file)
        let known = try Self.body(of: file)
        let unknown = [UInt8(ascii: "d")] + Array("5:aaaaai1e".utf8) + known.dropFirst()
        try Self.write(unknown, to: file)
        #expect(ProbeCache.handRead(unknown) == nil)
        #expect(Self.walked(unknown) == ProbeCache.handRead(known))
        #expect(ProbeCacheFormatTests.holdsBothRecords(file))
    }

    @Test("bytes changed behind a valid checksum: whatever the hand reader reads, the walk reads the same", .offThePool)
    func changedBytes() throws {
        let file = try FileTrustTests.folder("cache-changed") + "/probe-cache.json"
        _ = try Self.savedCache(at: file)
        let body = try Self.body(of: file)
        // Bytes the form gives meaning to, and others.
        let bytes = Array("dlenft0123456789:-ix".utf8) + [0x00, 0x80, 0xC3, 0xFF]
        var random = SeededRandom(state: 34)
        var (readByHand, leftToWalk) = (0, 0)
        for _ in 0..<1500 {
            var changed = body
            for _ in 0...Int.random(in: 0..<2, using: &random) {
                let offset = Int.random(in: 0..<changed.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: changed[offset] = bytes[Int.random(in: 0..<bytes.count, using: &random)]
                case 1: changed.remove(at: offset)
                default: changed.insert(bytes[Int.random(in: 0..<bytes.count, using: &random)], at: offset)
                }
            }
            if let byHand = ProbeCache.handRead(changed) {
                readByHand += 1
                #expect(Self.walked(changed) == byHand, "changed: \(String(decoding: changed, as: UTF8.self))")
            } else {
                leftToWalk += 1
            }
        }
        // Both ways were taken: a changed letter in a string reads by hand, a broken structure does not.
        #expect(readByHand > 100 && leftToWalk > 100, "\(readByHand) read by hand, \(leftToWalk) left to the walk")
    }
}
