import Foundation
import MicroappCore
import MicroappDigest
import MicroappPlatform
import MicroappSDK
import MicroappShipping
import TestScratch
import Testing

/// Keys, the trust list and channel folders on disk, with real files in the test's scratch folder.
@Suite struct ReleaseFilesTests {
    private let folders: ReleaseFolders = {
        let home = Scratch.folder("release-home").path
        return ReleaseFolders(environment: ["XDG_CONFIG_HOME": home + "/config"], home: home)
    }()

    private func mode(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    @Test(.offThePool) func foldersFollowTheXDGRules() {
        let set = ReleaseFolders(environment: ["XDG_CONFIG_HOME": "/c", "XDG_STATE_HOME": "/s"], home: "/h")
        #expect(set.privateKey("team") == "/c/microapp/keys/team.key")
        #expect(set.trustList == "/c/microapp/trusted-keys.json")
        #expect(set.seenVersions == "/s/microapp/channels.json")
        let unset = ReleaseFolders(environment: ["XDG_CONFIG_HOME": ""], home: "/h")
        #expect(unset.config == "/h/.config/microapp")
        #expect(unset.state == "/h/.local/state/microapp")
    }

    @Test(.offThePool) func aGeneratedKeyIsStoredForItsOwnerAloneAndReadsBack() throws {
        let key = try ReleaseKeyFile.generate("team", in: folders).get()
        #expect(try mode(folders.privateKey("team")) == 0o600)
        #expect(try mode(folders.keys) == 0o700)
        #expect(try ReleaseKeyFile.read("team", in: folders).get() == key)
        let shared = try String(contentsOfFile: folders.publicKey("team"), encoding: .utf8)
        #expect(KeyText.publicKey(shared) == key.publicKey)
    }

    @Test(.offThePool) func aKeyIsNeverOverwritten() throws {
        let key = try ReleaseKeyFile.generate("team", in: folders).get()
        let again = ReleaseKeyFile.generate("team", in: folders)
        if case .failure(let problem) = again { #expect(problem.code == "key-exists") } else { Issue.record("made") }
        #expect(try ReleaseKeyFile.read("team", in: folders).get() == key)
    }

    @Test(.offThePool) func aPrivateKeyOthersCanReadIsRefused() throws {
        _ = try ReleaseKeyFile.generate("team", in: folders).get()
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o644], ofItemAtPath: folders.privateKey("team"))
        guard case .failure(let problem) = ReleaseKeyFile.read("team", in: folders) else {
            Issue.record("read a key open to others")
            return
        }
        #expect(problem.code == "key-open-to-others")
        #expect(problem.fix.contains("chmod 600"))
    }

    @Test(.offThePool) func aMissingKeyOrABadNameSaysWhatToDo() {
        if case .failure(let problem) = ReleaseKeyFile.read("nobody", in: folders) {
            #expect(problem.code == "no-key")
            #expect(problem.fix.contains("keygen"))
        } else {
            Issue.record("read a key that does not exist")
        }
        if case .failure(let problem) = ReleaseKeyFile.generate("../escape", in: folders) {
            #expect(problem.code == "bad-key-name")
        } else {
            Issue.record("made a key outside the keys folder")
        }
    }

    @Test(.offThePool) func theTrustListAndTheChannelRecordPersist() throws {
        let store = ReleaseStore(folders: folders)
        #expect(try store.trustList().get() == TrustList())
        let key = try #require(Ed25519.PrivateKey.generate())
        let list = try #require(TrustList().trusting(KeyText.text(of: key.publicKey), as: "acme", for: ["characters"]))
        #expect(store.save(list) == nil)
        #expect(try store.trustList().get() == list)
        let seen = SeenVersions().seeing(index: 4, from: "c").accepting("characters", version: 2, from: "c")
        #expect(store.save(seen) == nil)
        #expect(try store.seenVersions().get() == seen)
        try Data("{".utf8).write(to: URL(fileURLWithPath: folders.trustList))
        guard case .failure(let problem) = store.trustList() else {
            Issue.record("a broken trust list read as a list")
            return
        }
        #expect(problem.code == "bad-release-file")
    }

    /// A release folder written, published into a channel folder twice, and the channel read back verified.
    @Test(.offThePool) func aReleasePublishedToAChannelFolderVerifiesFromIt() throws {
        let key = try ReleaseKeyFile.generate("team", in: folders).get()
        let trust = try #require(TrustList().trusting(KeyText.text(of: key.publicKey), as: "team", for: ["characters"]))
        let work = Scratch.folder("channel-work").path
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for version in [1, 2] {
            let library = Data("library v\(version)".utf8)
            let manifest = Data(#"{"id":"characters","version":\#(version)}"#.utf8)
            let release = SignedRelease.make(
                library: library, libraryName: "libCharacters.so", manifest: manifest, feature: "characters",
                version: version, sdk: .init(major: 1, minor: 0), key: key, now: now)
            #expect(
                ChannelFolder.writeRelease(release, library: library, manifest: manifest, to: work + "/r\(version)")
                    == nil)
            _ = try ChannelFolder.publish(
                work + "/r\(version)", to: work + "/channel", key: key, trust: trust, now: now
            )
            .get()
        }
        let channel = work + "/channel"
        let indexBytes = try Data(contentsOf: URL(fileURLWithPath: channel + "/" + ChannelLayout.index))
        let signature = try Data(contentsOf: URL(fileURLWithPath: channel + "/" + ChannelLayout.signature))
        let verification = ChannelVerification(
            channel: channel, trust: trust, seen: SeenVersions(), sdk: SDKVersion(major: 1, minor: 0))
        let index = try verification.verifyIndex(indexBytes, signature: signature, now: now).get().index
        #expect(index.version == 2)
        let library = try #require(index.latest("characters")?.library)
        #expect(
            try ChannelFolder.readBounded(channel + "/" + library.path, entry: library).get() == Data("library v2".utf8)
        )

        // The same version again is refused, and the channel keeps its index.
        let again = ChannelFolder.publish(work + "/r2", to: channel, key: key, trust: trust, now: now)
        if case .failure(let problem) = again {
            #expect(problem.code == "not-an-update")
        } else {
            Issue.record("published twice")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: channel + "/" + ChannelLayout.index)) == indexBytes)
    }

    @Test(.offThePool) func aChannelFileLongerOrDifferentThanItsEntryIsRefusedWithoutReadingPastTheBound() throws {
        let path = Scratch.folder("bounded").path + "/libCharacters.so"
        let bytes = Data("library v1".utf8)
        let entry = FileEntry(path: "libCharacters.so", bytes: bytes)
        try (bytes + Data(repeating: 0, count: 1 << 20)).write(to: URL(fileURLWithPath: path))
        guard case .failure(let longer) = ChannelFolder.readBounded(path, entry: entry) else {
            Issue.record("read a longer file")
            return
        }
        #expect(longer.code == "download-too-large")
        try bytes.flipping(at: 0).write(to: URL(fileURLWithPath: path))
        guard case .failure(let changed) = ChannelFolder.readBounded(path, entry: entry) else {
            Issue.record("read a changed file")
            return
        }
        #expect(changed.code == "file-mismatch")
    }

    @Test(.offThePool) func aReleaseFolderWhoseLibraryWasSwappedIsRefused() throws {
        let key = try #require(Ed25519.PrivateKey.generate())
        let trust = try #require(TrustList().trusting(KeyText.text(of: key.publicKey), as: "team", for: ["characters"]))
        let folder = Scratch.folder("release").path + "/r"
        let library = Data("library".utf8)
        let release = SignedRelease.make(
            library: library, libraryName: "libCharacters.so", manifest: Data("{}".utf8), feature: "characters",
            version: 1, sdk: .init(major: 1, minor: 0), key: key, now: Date(timeIntervalSince1970: 0))
        #expect(ChannelFolder.writeRelease(release, library: library, manifest: Data("{}".utf8), to: folder) == nil)
        try Data("librarz".utf8).write(to: URL(fileURLWithPath: folder + "/libCharacters.so"))
        guard case .failure(let problem) = ChannelFolder.readRelease(folder, trust: trust) else {
            Issue.record("read a swapped library")
            return
        }
        #expect(problem.code == "file-mismatch")
    }
}
