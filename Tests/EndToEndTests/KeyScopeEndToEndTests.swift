import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import MicroappShipping
import TestScratch
import Testing

/// A second trusted publisher, as an attacker who got a key trusted would use it: `microapp update` with the real
/// binary, real libraries and real signatures from a channel folder.
@Suite("Keys scoped to features, end to end", .promptResumes)
struct KeyScopeEndToEndTests {
    @Test(
        "a second trusted key publishing the host's auth, another team's tick and its own tock: only tock installs, and the folder is byte for byte unchanged after each refusal"
    )
    func onlyTheKeysOwnFeatureInstalls() async throws {
        let world = try await UpdateWorld.make()
        // The folder runs acme's tick, the host's auth and team B's tock, each v1, locked.
        let libraries = [
            ("tick", try await Tick.library(1)), ("auth", try await Tick.library(1, id: "auth")),
            ("tock", try await Tick.library(1, id: "tock")),
        ]
        var locked: [(String, String, String)] = []
        for (id, bytes) in libraries {
            let path = world.plugins + "/lib\(Tick.module(id)).so"
            try bytes.write(to: URL(fileURLWithPath: path))
            locked.append((path, id, SHA256Text.of(bytes)))
        }
        try PluginLock(libraries: locked).write(in: world.plugins)
        // Team B's key is trusted for tock alone, through the real binary.
        let teamB = try ReleaseKeyFile.generate("teamb", in: world.folders).get()
        let trusted = try await world.microapp(
            ["trust", KeyText.text(of: teamB.publicKey), "--name", "teamb", "--feature", "tock"])
        #expect(trusted.status == 0, "\(trusted.err)")
        let listed = try await world.microapp(["trust", "--list"])
        #expect(listed.out.contains("teamb \(KeyText.text(of: teamB.publicKey)) tock\n"), "\(listed.out)")
        #expect(listed.out.contains("acme ed25519:") && listed.out.contains(" tick\n"), "\(listed.out)")

        let channel = world.home + "/teamb-channel"
        for (feature, version) in [("auth", 99), ("tick", 2)] {
            try await world.publish(
                version, library: Data("team B's \(feature)".utf8), key: "teamb", feature: feature, channel: channel)
            let refused = try await world.refusedUpdate(from: channel)
            #expect(refused.contains("may sign only tock, not \(feature)"), "\(refused)")
        }

        try await world.publish(2, key: "teamb", feature: "tock", channel: channel)
        let updated = try await world.microapp(["update", "--channel", channel, "--plugins", world.plugins])
        #expect(updated.out.contains("installed tock 1 → 2"), "\(updated.out)\(updated.err)")
        #expect(!updated.out.contains("installed auth") && !updated.out.contains("installed tick"), "\(updated.out)")
        #expect(updated.err.components(separatedBy: "may sign only tock").count == 3, "\(updated.err)")
        #expect(
            FileManager.default.contents(atPath: world.plugins + "/libTock.so")
                == (try await Tick.library(2, id: "tock")))
        #expect(FileManager.default.contents(atPath: world.plugins + "/libAuth.so") == libraries[1].1)
        #expect(FileManager.default.contents(atPath: world.plugins + "/libTick.so") == libraries[0].1)
    }

    @Test(
        "an index entry in its key's scope whose release record another trusted key signed, out of that key's scope, is refused; the folder is unchanged"
    )
    func aRecordSignedOutOfScopeIsRefused() async throws {
        let world = try await UpdateWorld.make()
        let teamB = try ReleaseKeyFile.generate("teamb", in: world.folders).get()
        let trusted = try await world.microapp(
            ["trust", KeyText.text(of: teamB.publicKey), "--name", "teamb", "--feature", "tock"])
        #expect(trusted.status == 0, "\(trusted.err)")
        // Team B signs a tick release; acme's index (acme may sign tick) lists it.
        try await world.publish(2, library: Data("team B's tick".utf8), key: "teamb", index: "acme")
        let refused = try await world.refusedUpdate()
        #expect(refused.contains("teamb's key"), "\(refused)")
        #expect(refused.contains("may sign only tock, not tick"), "\(refused)")
    }

    @Test("a trust list written before scopes is read; its key's releases are refused with the command that scopes it")
    func anUnscopedEntryIsRefusedWithTheCommandThatScopesIt() async throws {
        let world = try await UpdateWorld.make()
        let key = try ReleaseKeyFile.read("acme", in: world.folders).get()
        let text = KeyText.text(of: key.publicKey)
        try Data(#"{"keys":{"acme":"\#(text)"}}"#.utf8).write(to: URL(fileURLWithPath: world.folders.trustList))
        let listed = try await world.microapp(["trust", "--list"])
        #expect(listed.out.contains("acme \(text) (no feature: trust it again with --feature ID)"), "\(listed.out)")
        try await world.publish(2)
        let refused = try await world.refusedUpdate()
        #expect(refused.contains("names no feature it may sign"), "\(refused)")
        #expect(refused.contains("microapp trust \(text) --name acme --feature tick"), "\(refused)")

        let bare = try await world.microapp(["trust", text, "--name", "acme"])
        #expect(bare.status == 1)
        #expect(bare.err.contains("at least one --feature ID"), "\(bare.err)")
        let scoped = try await world.microapp(["trust", text, "--name", "acme", "--feature", "tick"])
        #expect(scoped.status == 0, "\(scoped.err)")
        let updated = try await world.microapp(["update", "--channel", world.channel, "--plugins", world.plugins])
        #expect(updated.out.contains("installed tick 1 → 2"), "\(updated.out)\(updated.err)")
        // Pinned because a trusted key signed its bytes, not because anyone read them: it runs isolated.
        #expect(try world.lockEntry()?.isolation == .process)
    }

    @Test("trusting a key for the app's own auth says that its releases will replace the app's own")
    func trustingForAHostFeatureSaysSo() async throws {
        let world = try await UpdateWorld.make()
        let key = try ReleaseKeyFile.read("acme", in: world.folders).get()
        let result = try await world.microapp(
            ["trust", KeyText.text(of: key.publicKey), "--name", "acme", "--feature", "tick", "--feature", "auth"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("trusted acme for auth, tick"), "\(result.out)")
        #expect(result.err.contains("auth is this app's own"), "\(result.err)")
    }
}

/// A publisher's key rotates, as `microapp rotate` announces it in the channel, with the real binary.
@Suite("Key rotation, end to end", .promptResumes)
struct KeyRotationEndToEndTests {
    @Test(
        "rotate: the next update trusts the new key for the old one's ids and installs its release; the old key's next index is refused"
    )
    func rotationTakesOverAndTheOldKeyIsRefused() async throws {
        let world = try await UpdateWorld.make()
        try await world.publish(2)
        let made = try await world.microapp(["keygen", "--name", "acme2"])
        #expect(made.status == 0, "\(made.err)")
        // The publisher's own list follows at once; a person's machine (the list as it was) at its next update.
        let person = try Data(contentsOf: URL(fileURLWithPath: world.folders.trustList))
        let rotated = try await world.microapp(["rotate", "acme", "acme2", "--channel", world.channel])
        #expect(rotated.status == 0, "\(rotated.err)")
        #expect(rotated.out.contains("the index is signed by acme2"), "\(rotated.out)")
        #expect(rotated.out.contains("trust: acme's key rotated to"), "\(rotated.out)")
        try person.write(to: URL(fileURLWithPath: world.folders.trustList))
        try await world.publish(3, key: "acme2")

        let updated = try await world.microapp(["update", "--channel", world.channel, "--plugins", world.plugins])
        #expect(updated.status == 0, "\(updated.err)")
        #expect(updated.out.contains("trust: acme's key rotated to"), "\(updated.out)")
        #expect(updated.out.contains("installed tick 1 → 3"), "\(updated.out)")
        let newKey = KeyText.text(of: try ReleaseKeyFile.read("acme2", in: world.folders).get().publicKey)
        let listed = try await world.microapp(["trust", "--list"])
        #expect(listed.out == "acme \(newKey) tick\n", "\(listed.out)")

        // The old key signs another index (its own channel): refused, the folder unchanged.
        let old = world.home + "/old-key-channel"
        try await world.publish(4, key: "acme", channel: old)
        let refused = try await world.refusedUpdate(from: old)
        #expect(refused.contains("which you do not trust"), "\(refused)")
    }
}
