import Foundation
import MicroappDigest
import MicroappPlatform
import MicroappSDK
import MicroappShipping
import TestScratch
import Testing

@Suite("End to end: microapp release writes a signed release of a built library that publish accepts", .promptResumes)
struct ReleaseCommandTests {
    /// A person's config and state folders of their own, and their key `acme`, trusted.
    private static func person() async throws -> (home: URL, environment: [String: String], key: String) {
        let home = try temporaryFolder("release-home")
        let environment = ["XDG_CONFIG_HOME": home.path + "/config", "XDG_STATE_HOME": home.path + "/state"]
        let made = try await runToEnd(["keygen", "--name", "acme"], in: home, environment: environment)
        #expect(made.status == 0, "\(made.err)")
        let key = made.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let trusted = try await runToEnd(
            ["trust", key, "--name", "acme", "--feature", "characters"], in: home, environment: environment)
        #expect(trusted.status == 0, "\(trusted.err)")
        return (home, environment, key)
    }

    /// The release folder `release` writes of the test build's libCharacters.so, signed by `acme`.
    private static func releaseCharacters(in home: URL, _ environment: [String: String]) async throws -> String {
        let library = AppProcess.buildDirectory.appendingPathComponent("libCharacters.so").path
        let folder = home.path + "/release"
        let released = try await runToEnd(
            ["release", "Characters", "--library", library, "-o", folder, "--key", "acme"], in: home,
            environment: environment)
        #expect(released.status == 0, "\(released.err)")
        return folder
    }

    @Test("release of libCharacters.so: the probe's manifest and SDK, the library's bytes, a signature by the key")
    func releaseVerifiesAndPublishes() async throws {
        let (home, environment, key) = try await Self.person()
        let library = AppProcess.buildDirectory.appendingPathComponent("libCharacters.so").path
        let folder = home.path + "/characters-release"
        let released = try await runToEnd(
            ["release", "Characters", "--library", library, "--key", "acme", "-o", folder], in: home,
            environment: environment)
        #expect(released.status == 0, "\(released.err)")
        #expect(released.out.contains("released characters v1"), "\(released.out)")
        #expect(released.out.contains("microapp publish \(folder) --channel DIR --key acme"), "\(released.out)")

        // The record verifies with the public key keygen printed, and says what the library is.
        let trust = TrustList(keys: ["acme": key])
        let record = try Data(contentsOf: URL(fileURLWithPath: folder + "/release.json"))
        let signature = try Data(contentsOf: URL(fileURLWithPath: folder + "/release.json.sig"))
        let (release, signer) = try SignedRelease.verify(
            recordBytes: record, signatureBytes: signature, subject: folder, trust: trust
        ).get()
        #expect(signer.name == "acme")
        #expect(release.record.feature == "characters")
        #expect(release.record.version == 1)
        #expect(release.record.sdk == SDKVersion.current.description)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: library))
        #expect(release.record.library == FileEntry(path: "libCharacters.so", bytes: bytes))
        let manifest = try Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))
        let summary = try JSONSerialization.jsonObject(with: manifest) as? [String: Any]
        #expect(summary?["id"] as? String == "characters")
        #expect(summary?["version"] as? Int == 1)
        #expect(try ChannelFolder.readRelease(folder, trust: trust).get().library == bytes)

        // publish takes it into a channel whose signed index lists it.
        let channel = home.path + "/channel"
        let index = try await publishedIndex(folder, channel: channel, in: home, environment, trust: trust)
        #expect(index.latest("characters")?.version == 1)

        // A release folder is never written over.
        let again = try await runToEnd(
            ["release", "Characters", "--library", library, "--key", "acme", "--output", folder], in: home,
            environment: environment)
        #expect(again.status == 1)
        #expect(again.err.contains("never written over"), "\(again.err)")
    }

    @Test("a library changed in the release folder after signing is refused by publish, and nothing is published")
    func tamperedLibraryRefused() async throws {
        let (home, environment, _) = try await Self.person()
        let folder = try await Self.releaseCharacters(in: home, environment)
        let copied = URL(fileURLWithPath: folder + "/libCharacters.so")
        var bytes = try Data(contentsOf: copied)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: copied)
        let channel = home.path + "/channel"
        let published = try await runToEnd(
            ["publish", folder, "--channel", channel, "--key", "acme"], in: home, environment: environment)
        #expect(published.status == 1)
        #expect(published.err.contains("not the ones signed"), "\(published.err)")
        #expect(!FileManager.default.fileExists(atPath: channel + "/index.json"))
    }

    @Test("trust --remove takes a key off the list: what it signed is refused, and --list no longer names it")
    func removedKeyIsNoLongerTrusted() async throws {
        let (home, environment, key) = try await Self.person()
        let listed = try await runToEnd(["trust", "--list"], in: home, environment: environment)
        #expect(listed.out == "acme \(key) characters\n", "\(listed.err)")
        let folder = try await Self.releaseCharacters(in: home, environment)

        let removed = try await runToEnd(["trust", "--remove", "acme"], in: home, environment: environment)
        #expect(removed.status == 0, "\(removed.err)")
        #expect(try await runToEnd(["trust", "--list"], in: home, environment: environment).out == "")
        let channel = home.path + "/channel"
        let published = try await runToEnd(
            ["publish", folder, "--channel", channel, "--key", "acme"], in: home, environment: environment)
        #expect(published.status == 1)
        #expect(published.err.contains("which you do not trust"), "\(published.err)")
        #expect(!FileManager.default.fileExists(atPath: channel + "/index.json"))

        let unknown = try await runToEnd(["trust", "--remove", "acme"], in: home, environment: environment)
        #expect(unknown.status == 1)
        #expect(unknown.err.contains("no key is trusted as 'acme'"), "\(unknown.err)")
    }

    @Test(
        "without a key, release says to run keygen; without NAME outside a feature's package it asks for one; a file that is not a library is refused by the probe (exit 2)"
    )
    func refusals() async throws {
        let home = try temporaryFolder("release-home")
        let environment = ["XDG_CONFIG_HOME": home.path + "/config", "XDG_STATE_HOME": home.path + "/state"]
        let library = AppProcess.buildDirectory.appendingPathComponent("libCharacters.so").path
        let keyless = try await runToEnd(
            ["release", "Characters", "--library", library], in: home, environment: environment)
        #expect(keyless.status == 1)
        #expect(keyless.err.contains("microapp keygen"), "\(keyless.err)")
        #expect(!FileManager.default.fileExists(atPath: home.path + "/characters-1"))

        #expect(try await runToEnd(["keygen"], in: home, environment: environment).status == 0)
        let nameless = try await runToEnd(["release"], in: home, environment: environment)
        #expect(nameless.status == 1)
        #expect(nameless.err.contains("needs NAME"), "\(nameless.err)")
        let broken = home.appendingPathComponent("libBroken.so")
        try Data("not a library".utf8).write(to: broken)
        let refused = try await runToEnd(
            ["release", "Broken", "--library", broken.path], in: home, environment: environment)
        #expect(refused.status == 2, "\(refused.err)")
        #expect(refused.err.contains("not releasing"), "\(refused.err)")
        // No plugin folder is involved: the fix is about the file given.
        #expect(refused.err.contains("to fix: give --library a feature's library"), "\(refused.err)")
        #expect(!refused.err.contains("plugin folder"), "\(refused.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).sorted() == ["config", "libBroken.so"])
    }
}
