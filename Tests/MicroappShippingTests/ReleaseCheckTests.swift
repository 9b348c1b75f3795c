import Foundation
import MicroappCore
import MicroappDigest
import MicroappSDK
import MicroappShipping
import TestScratch
import Testing

@Suite struct ReleaseCheckTests {
    private func code(_ result: Result<some Any, Problem>) -> String? {
        if case .failure(let problem) = result { return problem.code.rawValue }
        return nil
    }

    private func entry(_ fixture: ChannelFixture, _ feature: String, _ version: Int) throws -> ChannelIndex.Entry {
        try #require(fixture.index?.features[feature]?.first { $0.version == version })
    }

    @Test(.offThePool) func aNewerCompatibleReleaseIsAnUpdate() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 3)
        let entry = try entry(fixture, "characters", 3)
        #expect(try fixture.verification().checkRelease(entry, of: "characters", installed: 2).get() == entry)
        #expect(try fixture.verification().checkRelease(entry, of: "characters", installed: nil).get() == entry)
    }

    @Test(.offThePool) func aVersionNotAboveTheInstalledOneIsNotAnUpdate() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 3)
        let entry = try entry(fixture, "characters", 3)
        #expect(code(fixture.verification().checkRelease(entry, of: "characters", installed: 3)) == "not-an-update")
        #expect(code(fixture.verification().checkRelease(entry, of: "characters", installed: 4)) == "not-an-update")
    }

    @Test(.offThePool) func aReleaseOlderThanOneAcceptedBeforeIsARollback() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 3)
        let seen = SeenVersions().accepting("characters", version: 5, from: "https://example.test/stable")
        let result = fixture.verification(seen: seen).checkRelease(
            try entry(fixture, "characters", 3), of: "characters", installed: 2)
        #expect(code(result) == "release-rollback")
    }

    @Test(.offThePool) func aReleaseForAnotherSDKMajorIsRefusedNamingBoth() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 3, sdk: SDKVersion(major: 2, minor: 0))
        let result = fixture.verification(sdk: SDKVersion(major: 1, minor: 2)).checkRelease(
            try entry(fixture, "characters", 3), of: "characters", installed: nil)
        #expect(code(result) == "release-sdk")
        if case .failure(let problem) = result {
            #expect(problem.reason.contains("SDK 2.0"))
            #expect(problem.reason.contains("SDK 1.2"))
            #expect(problem.reason.contains("major 2"))
        }
    }

    @Test(.offThePool) func aReleaseForANewerSDKMinorIsRefusedAndAnOlderMinorIsNot() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 3, sdk: SDKVersion(major: 1, minor: 3))
        try fixture.publish("search", 1, sdk: SDKVersion(major: 1, minor: 1))
        let verification = fixture.verification(sdk: SDKVersion(major: 1, minor: 2))
        let newer = verification.checkRelease(try entry(fixture, "characters", 3), of: "characters", installed: nil)
        #expect(code(newer) == "release-sdk")
        if case .failure(let problem) = newer {
            #expect(problem.reason.contains("1.3") && problem.reason.contains("1.2"))
            #expect(problem.fix.contains("SDK 1.3"))
        }
        #expect(throws: Never.self) {
            try verification.checkRelease(entry(fixture, "search", 1), of: "search", installed: nil).get()
        }
    }

    @Test(.offThePool) func aLibraryWithAFlippedByteIsRefusedAgainstTheIndex() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 1)
        let library = try #require(try entry(fixture, "characters", 1).library)
        let bytes = fixture.files[library.path]!
        #expect(throws: Never.self) { try FileCheck.check(bytes, against: library, subject: library.path).get() }
        let result = FileCheck.check(bytes.flipping(at: -1), against: library, subject: library.path)
        #expect(code(result) == "file-mismatch")
        #expect(code(FileCheck.check(bytes.dropLast(), against: library, subject: library.path)) == "file-mismatch")
    }

    @Test(.offThePool) func aDownloadLongerThanTheIndexSaysIsCutOffAndRefused() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 1)
        let library = try #require(try entry(fixture, "characters", 1).library)
        let bytes = fixture.files[library.path]!
        var download = BoundedDownload(entry: library, subject: "https://example.test/" + library.path)
        #expect(download.remaining == bytes.count + 1)
        #expect(download.append(bytes.prefix(4)) == nil)
        #expect(download.remaining == bytes.count - 3)
        let problem = download.append(bytes.dropFirst(4) + Data([0]))
        #expect(problem?.code == "download-too-large")
        // Nothing past the bound was kept.
        #expect(download.bytes.count == 4)
        var exact = BoundedDownload(entry: library, subject: library.path)
        #expect(exact.append(bytes) == nil)
        #expect(try exact.finish().get() == bytes)
    }

    @Test(.offThePool) func aSignedReleaseVerifiesAndMatchesItsIndexEntry() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 1)
        let folder = ChannelLayout.folder(feature: "characters", version: 1) + "/"
        let (release, signer) = try SignedRelease.verify(
            recordBytes: fixture.files[folder + ReleaseLayout.record]!,
            signatureBytes: fixture.files[folder + ReleaseLayout.signature]!, subject: folder + ReleaseLayout.record,
            trust: fixture.trust
        ).get()
        #expect(signer.name == "team")
        #expect(release.record.feature == "characters" && release.record.version == 1 && release.record.sdk == "1.0")
        let entry = try entry(fixture, "characters", 1)
        #expect(fixture.verification().checkRecord(release.record, against: entry, of: "characters") == nil)
        // A record of another version under this entry does not match it.
        var other = release.record
        other.version = 2
        #expect(fixture.verification().checkRecord(other, against: entry, of: "characters")?.code == "release-mismatch")
    }

    @Test(.offThePool) func aTamperedReleaseRecordOrOneByAnUntrustedKeyIsRefused() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 1)
        let folder = ChannelLayout.folder(feature: "characters", version: 1) + "/"
        let record = fixture.files[folder + ReleaseLayout.record]!
        let signature = fixture.files[folder + ReleaseLayout.signature]!
        let tampered = SignedRelease.verify(
            recordBytes: record.flipping(at: 12), signatureBytes: signature, subject: "release.json",
            trust: fixture.trust)
        #expect(code(tampered) == "release-signature")
        let untrusted = SignedRelease.verify(
            recordBytes: record, signatureBytes: signature, subject: "release.json", trust: TrustList())
        #expect(code(untrusted) == "untrusted-key")
        // An index is signed too, but is not a release.
        let index = SignedRelease.verify(
            recordBytes: fixture.files[ChannelLayout.index]!, signatureBytes: fixture.files[ChannelLayout.signature]!,
            subject: "index.json", trust: fixture.trust)
        #expect(code(index) == "bad-signed-document")
    }
}

@Suite struct UpdateChoiceTests {
    @Test(.offThePool) func theNewestReleaseThisHostSpeaksIsChosenAndNewerOnesAreToldAsRefused() throws {
        var fixture = ChannelFixture()
        try fixture.publish("characters", 2)
        try fixture.publish("characters", 3, sdk: SDKVersion(major: 1, minor: 1))
        try fixture.publish("characters", 4, sdk: SDKVersion(major: 2, minor: 0))
        try fixture.publish("search", 1)
        try fixture.publish("settings", 7)
        let index = try #require(fixture.index)
        let choice = fixture.verification(sdk: SDKVersion(major: 1, minor: 2)).updates(
            in: index, installed: ["characters": 1, "search": 1, "auth": 1], signedBy: fixture.signer)
        #expect(choice.updates.mapValues(\.version) == ["characters": 3])
        #expect(choice.refused.map(\.code) == ["release-sdk"])
        #expect(choice.refused.first?.subject == "characters 4")
    }
}
