import Foundation
import MicroappCore
import MicroappDigest
import MicroappSDK
import MicroappShipping
import TestScratch
import Testing

@Suite struct ChannelVerificationTests {
    private func code(_ result: Result<some Any, Problem>) -> String? {
        if case .failure(let problem) = result { return problem.code.rawValue }
        return nil
    }

    private func verify(_ fixture: ChannelFixture, seen: SeenVersions = SeenVersions(), at now: Date? = nil)
        -> Result<VerifiedIndex, Problem>
    {
        fixture.verification(seen: seen).verifyIndex(
            fixture.files[ChannelLayout.index]!, signature: fixture.files[ChannelLayout.signature]!,
            now: now ?? fixture.now)
    }

    @Test(.offThePool) func aPublishedIndexVerifiesAndListsEachFileWithItsHashAndSize() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 1)
        let verified = try verify(fixture).get()
        #expect(verified.signer.name == "team")
        #expect(verified.index.version == 1)
        let entry = try #require(verified.index.latest("characters"))
        #expect(entry.files.count == 4)
        for file in entry.files {
            let bytes = try #require(fixture.files[file.path])
            #expect(try FileCheck.check(bytes, against: file, subject: file.path).get() == bytes)
        }
        #expect(entry.library?.path == "releases/characters/1/libcharacters.so")
    }

    @Test(.offThePool) func publishingAgainRaisesTheIndexVersionAndKeepsEarlierReleases() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 1)
        try fixture.publish("search", 4)
        try fixture.publish("characters", 2)
        let index = try verify(fixture).get().index
        #expect(index.version == 3)
        #expect(index.features["characters"]?.map(\.version) == [1, 2])
        #expect(index.latest("search")?.version == 4)
    }

    @Test(.offThePool) func publishingAVersionTheChannelHasIsRefused() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 2)
        #expect(throws: Problem.self) { try fixture.publish("characters", 2) }
        let older = ChannelPublication.publish(
            fixture.release("characters", 1), library: ChannelFixture.library("characters", 1),
            manifest: ChannelFixture.manifest("characters", 1), onto: fixture.index, key: fixture.key,
            now: fixture.now)
        #expect(code(older) == "not-an-update")
    }

    @Test(.offThePool) func publishingLibraryBytesOtherThanTheRecordsIsRefused() throws {
        let fixture = ChannelFixture()
        let result = ChannelPublication.publish(
            fixture.release("characters", 1), library: ChannelFixture.library("characters", 1).flipping(at: 0),
            manifest: ChannelFixture.manifest("characters", 1), onto: nil, key: fixture.key, now: fixture.now)
        #expect(code(result) == "file-mismatch")
    }

    @Test(.offThePool) func anIndexWithAFlippedByteIsRefusedForItsSignature() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 1)
        // A digit of the version field: still JSON, still an index, no longer what was signed.
        let bytes = fixture.files[ChannelLayout.index]!
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasSuffix("\"version\":1}"))
        fixture.files[ChannelLayout.index] = Data((text.dropLast(2) + "9}").utf8)
        let result = verify(fixture)
        #expect(code(result) == "index-signature")
        if case .failure(let problem) = result {
            #expect(problem.subject.hasSuffix("index.json"))
            #expect(problem.reason.contains("team"))
            #expect(!problem.fix.isEmpty)
        }
        fixture.files[ChannelLayout.index] = bytes.flipping(at: 5)
        #expect(code(verify(fixture)) == "index-signature")
    }

    @Test(.offThePool) func anIndexWithAFlippedSignatureByteIsRefused() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 1)
        var signature = try CanonicalJSON.decode(SignatureFile.self, from: fixture.files[ChannelLayout.signature]!)
        let flipped = Data(base64Encoded: signature.signature)!.flipping(at: 20)
        signature.signature = flipped.base64EncodedString()
        fixture.files[ChannelLayout.signature] = signature.encoded()
        #expect(code(verify(fixture)) == "index-signature")
        fixture.files[ChannelLayout.signature] = Data("not json".utf8)
        #expect(code(verify(fixture)) == "bad-signed-document")
    }

    @Test(.offThePool) func anIndexSignedByAKeyNotTrustedIsRefusedNamingTheKeyToTrust() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 1)
        let stranger = ChannelVerification(
            channel: "https://example.test/stable",
            trust: TrustList().trusting(
                KeyText.text(of: Ed25519.PrivateKey.generate()!.publicKey), as: "other", for: ["characters"])!,
            seen: SeenVersions(), sdk: .init(major: 1, minor: 0))
        let result = stranger.verifyIndex(
            fixture.files[ChannelLayout.index]!, signature: fixture.files[ChannelLayout.signature]!, now: fixture.now)
        #expect(code(result) == "untrusted-key")
        if case .failure(let problem) = result {
            #expect(problem.fix.contains("microapp trust \(KeyText.text(of: fixture.key.publicKey))"))
        }
        // Another key's signature file, claiming the trusted key's id, still fails.
        var forged = SignatureFile(signing: fixture.files[ChannelLayout.index]!, with: Ed25519.PrivateKey.generate()!)
        forged.key = KeyText.text(of: fixture.key.publicKey)
        forged.keyid = KeyText.id(of: fixture.key.publicKey)
        fixture.files[ChannelLayout.signature] = forged.encoded()
        #expect(code(verify(fixture)) == "index-signature")
    }

    @Test(.offThePool) func anExpiredIndexIsRefused() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 1, lifetime: 3600)
        #expect(throws: Never.self) { try verify(fixture, at: fixture.now.addingTimeInterval(3599)).get() }
        let result = verify(fixture, at: fixture.now.addingTimeInterval(3600))
        #expect(code(result) == "index-expired")
        if case .failure(let problem) = result { #expect(problem.reason.contains("2027-01-15T09:00:00Z")) }
    }

    @Test(
        "an index that expires more than a year and a day ahead is refused: its expiry would be no defence", .offThePool
    )
    func anIndexThatExpiresTooFarAheadIsRefused() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 1, lifetime: ChannelVerification.maximumLifetime)
        #expect(throws: Never.self) { try verify(fixture).get() }
        var far = ChannelFixture()
        try far.publish("characters", 1, lifetime: 3_650_000 * 86400)
        let result = verify(far)
        #expect(code(result) == "index-expiry-too-far")
        if case .failure(let problem) = result { #expect(problem.fix.contains("at most 365 days")) }
    }

    @Test(
        "a channel is known by its key: an index that names its channel is recorded under the signer's key and that id too, so an older one is refused under any other spelling or mirror of its URL",
        .offThePool)
    func aChannelIsKnownByItsKey() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 1, channel: "stable")
        let old = fixture.files
        try fixture.publish("characters", 2)
        let newer = try verify(fixture).get()
        #expect(newer.index.channel == "stable", "the id stays as first published")
        let names = newer.recordNames(channel: "https://example.test/stable")
        #expect(names == ["https://example.test/stable", "\(KeyText.text(of: fixture.key.publicKey))#stable"])
        var seen = SeenVersions()
        for name in names { seen = seen.seeing(index: newer.index.version, from: name) }
        var replay = fixture
        replay.files = old
        let mirror = ChannelVerification(
            channel: "http://127.0.0.1:8080/./stable", trust: fixture.trust, seen: seen, sdk: .init(major: 1, minor: 2))
        let result = mirror.verifyIndex(
            old[ChannelLayout.index]!, signature: old[ChannelLayout.signature]!, now: fixture.now)
        #expect(code(result) == "index-rollback")
        // A release seen under the key is not taken back under another spelling either.
        var releases = mirror
        releases.recordNames = names
        seen = seen.accepting("characters", version: 2, from: names[1])
        releases.seen = seen
        let entry = try #require(try verify(replay).get().index.latest("characters"))
        #expect(code(releases.checkRelease(entry, of: "characters", installed: nil)) == "release-rollback")
    }

    @Test(.offThePool) func anOlderIndexReplayedAfterANewerOneIsRefused() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 1)
        let old = fixture.files
        try fixture.publish("characters", 2)
        let newer = try verify(fixture).get()
        let seen = SeenVersions().seeing(index: newer.index.version, from: "https://example.test/stable")
        #expect(throws: Never.self) { try verify(fixture, seen: seen).get() }
        var replay = fixture
        replay.files = old
        let result = verify(replay, seen: seen)
        #expect(code(result) == "index-rollback")
        // The same index from another channel is that channel's business.
        let elsewhere = SeenVersions().seeing(index: 2, from: "https://example.test/beta")
        #expect(throws: Never.self) { try verify(replay, seen: elsewhere).get() }
    }

    @Test(.offThePool) func seenVersionsKeepTheHighest() throws {
        let seen = SeenVersions().seeing(index: 5, from: "c").seeing(index: 3, from: "c")
            .accepting("characters", version: 4, from: "c").accepting("characters", version: 2, from: "c")
        #expect(seen.index(of: "c") == 5)
        #expect(seen.release(of: "characters", from: "c") == 4)
        #expect(seen.index(of: "d") == 0)
        #expect(try CanonicalJSON.decode(SeenVersions.self, from: seen.encoded()) == seen)
    }
}

@Suite struct IndexPathTests {
    @Test(.offThePool) func anIndexListingAPathOutsideItsReleaseFolderIsRefused() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 1)
        var index = try #require(fixture.index)
        index.features["characters"]![0].files[0].path = "releases/characters/1/../../../etc/passwd"
        let bytes = try CanonicalJSON.encode(index)
        let result = fixture.verification().verifyIndex(
            bytes, signature: SignatureFile(signing: bytes, with: fixture.key).encoded(), now: fixture.now)
        guard case .failure(let problem) = result else {
            Issue.record("verified an index reaching outside its folders")
            return
        }
        #expect(problem.code == "bad-signed-document")
        #expect(problem.reason.contains("etc/passwd"))
    }
}
