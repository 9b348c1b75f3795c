import Foundation
import MicroappPlatform
import MicroappSDK
import MicroappShipping
import TestScratch
import Testing

@Suite("End to end: keygen, trust and publish with the real binary", .promptResumes)
struct ReleaseCommandsTests {
    @Test("keygen prints a public key and keeps the private one 0600; trust lists it; publish signs a channel's index")
    func keygenTrustPublish() async throws {
        let (home, environment, printed) = try await homeWithKey("release-home", key: "acme")
        let folders = ReleaseFolders(environment: environment, home: home.path)
        let key = try ReleaseKeyFile.read("acme", in: folders).get()
        #expect(KeyText.publicKey(printed) == key.publicKey)
        let mode = try FileManager.default.attributesOfItem(atPath: folders.privateKey("acme"))[.posixPermissions]
        #expect(mode as? Int == 0o600)

        let again = try await runToEnd(["keygen", "--name", "acme"], in: home, environment: environment)
        #expect(again.status == 1)
        #expect(again.err.contains("exists already"))

        let trusted = try await runToEnd(
            ["trust", printed, "--name", "acme", "--feature", "clock"], in: home, environment: environment)
        #expect(trusted.status == 0, "\(trusted.err)")
        let trust = try ReleaseStore(folders: folders).trustList().get()
        #expect(trust.keys == ["acme": printed])
        #expect(trust.features == ["acme": ["clock"]])
        let bad = try await runToEnd(["trust", "ed25519:nope", "--name", "x"], in: home, environment: environment)
        #expect(bad.status == 1)
        #expect(bad.err.contains("to fix:"))

        let library = Data("a library".utf8)
        let manifest = Data(#"{"id":"clock","version":3}"#.utf8)
        let release = SignedRelease.make(
            library: library, libraryName: "libClock.so", manifest: manifest, feature: "clock", version: 3,
            sdk: .current, key: key, now: Date())
        let releaseFolder = home.path + "/clock-3"
        #expect(ChannelFolder.writeRelease(release, library: library, manifest: manifest, to: releaseFolder) == nil)
        let channel = home.path + "/channel"
        let index = try await publishedIndex(releaseFolder, channel: channel, in: home, environment, trust: trust)
        #expect(index.latest("clock")?.version == 3)
        let twice = try await runToEnd(
            ["publish", releaseFolder, "--channel", channel, "--key", "acme"], in: home, environment: environment)
        #expect(twice.status == 1)
        #expect(twice.err.contains("only go up"))
    }
}

/// Publishes `release` into `channel` with the key `acme` through the real binary, and returns the channel's index as
/// a host verifies it (signed by a key on `trust`, not expired).
func publishedIndex(
    _ release: String, channel: String, in home: URL, _ environment: [String: String], trust: TrustList
) async throws -> ChannelIndex {
    let published = try await runToEnd(
        ["publish", release, "--channel", channel, "--key", "acme"], in: home, environment: environment)
    #expect(published.status == 0, "\(published.err)")
    let index = try Data(contentsOf: URL(fileURLWithPath: channel + "/index.json"))
    let signature = try Data(contentsOf: URL(fileURLWithPath: channel + "/index.json.sig"))
    return try ChannelVerification(channel: channel, trust: trust, seen: SeenVersions(), sdk: .current)
        .verifyIndex(index, signature: signature, now: Date()).get().index
}
