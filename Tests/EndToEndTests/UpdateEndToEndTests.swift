import Foundation
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import MicroappShipping
import TestScratch
import TestServers
import Testing

/// `microapp update`, `versions` and `rollback` with the real binary against a channel served by Python's
/// `http.server` on loopback (and one from a folder), real `tick` libraries and real signatures.
@Suite("Updates from a channel, end to end", .promptResumes)
struct UpdateEndToEndTests {
    @Test(
        "update installs the newest release beside the old one and pins it; rollback goes back and marks it bad; a later release is installed, the bad one never again"
    )
    func updateRollbackAndALaterRelease() async throws {
        let world = try await UpdateWorld.make()
        try await world.publish(2)
        try await ChannelServer.serving(world.home + "/served") { server in
            let url = server.baseURL + "/channel"
            let updated = try await world.microapp(["update", "--channel", url, "--plugins", world.plugins])
            #expect(updated.status == 0, "\(updated.err)")
            #expect(updated.out.contains("installed tick 1 → 2"))
            // An app running from the folder loaded its libraries at its start: it is told it keeps them.
            #expect(
                updated.out.contains(
                    "note: an app already running from this folder keeps the versions it loaded until it restarts"))
            let two = try await Tick.library(2)
            #expect(FileManager.default.contents(atPath: world.plugins + "/libTick.so") == two)
            #expect(try world.lockEntry()?.sha256 == SHA256Text.of(two))
            #expect(try world.lockEntry()?.installing == nil)
            let listed = try await world.microapp(["versions", "tick", "--plugins", world.plugins])
            #expect(listed.status == 0, "\(listed.err)")
            #expect(listed.out.contains("* 2  current  from \(url)"))
            #expect(listed.out.contains("an app already running keeps the version it loaded until it restarts"))
            #expect(listed.out.contains("  1  kept from the folder"))

            let again = try await world.microapp(["update", "--channel", url, "--plugins", world.plugins])
            #expect(again.status == 0 && again.out.contains("up to date"), "\(again.out)\(again.err)")

            let back = try await world.microapp(["rollback", "Tick", "--plugins", world.plugins])
            #expect(back.status == 0, "\(back.err)")
            #expect(back.out.contains("rolled back tick 2 → 1"))
            #expect(
                back.out.contains(
                    "note: an app already running from this folder keeps running tick 2 until it restarts"))
            let one = try await Tick.library(1)
            #expect(FileManager.default.contents(atPath: world.plugins + "/libTick.so") == one)
            #expect(try world.lockEntry()?.sha256 == SHA256Text.of(one))
            let marked = try await world.microapp(["versions", "tick", "--plugins", world.plugins])
            #expect(marked.out.contains("  2  from \(url)  bad: left by `microapp rollback`"), "\(marked.out)")
            #expect(marked.out.contains("* 1  current"))
            let json = try await world.microapp(["versions", "tick", "--plugins", world.plugins, "--json"])
            let rows = json.out.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(rows.compactMap { $0["version"] as? Int } == [2, 1], "\(json.out)")
            #expect(rows.first?["bad"] as? String == "left by `microapp rollback`")
            #expect(rows.first?["channel"] as? String == url && rows.first?["running"] as? Bool == false)
            #expect(rows.last?["running"] as? Bool == true && rows.last?["bad"] is NSNull)

            try await world.publish(3)
            let later = try await world.microapp(["update", "--channel", url, "--plugins", world.plugins])
            #expect(later.status == 0, "\(later.err)")
            #expect(later.out.contains("installed tick 1 → 3"))
            #expect(later.err.contains("skipped: tick 2: this plugin folder marked it bad"))
            #expect(FileManager.default.contents(atPath: world.plugins + "/libTick.so") == (try await Tick.library(3)))
        }
    }

    @Test(
        "a channel folder updates the same way; before the first update the version running is the manifest's, and nothing is left to roll back to"
    )
    func folderChannel() async throws {
        let world = try await UpdateWorld.make()
        let none = try await world.microapp(["rollback", "tick", "--plugins", world.plugins])
        #expect(none.status == 1)
        #expect(none.err.contains("nothing to go back to"))
        let byHand = try await world.microapp(["versions", "tick", "--plugins", world.plugins])
        #expect(byHand.out.contains("* 1  current  not kept (put in the folder by hand; its manifest says 1)"))
        try await world.publish(2)
        let updated = try await world.microapp(["update", "--channel", world.channel, "--plugins", world.plugins])
        #expect(updated.status == 0, "\(updated.err)")
        #expect(updated.out.contains("installed tick 1 → 2"))
        #expect(FileManager.default.contents(atPath: world.plugins + "/libTick.so") == (try await Tick.library(2)))
    }

    /// The ways a channel can be tampered with or unusable, each refused.
    enum Tampering: String, CaseIterable, Sendable {
        case libraryBytes, indexSignature, replayedIndex, replayedUnderAnotherSpelling, expiredIndex, untrustedKey
        case newerSDK, longerDownload
    }

    @Test(
        "each tampering is refused with what, why and the fix, and the plugin folder stays byte for byte as it was",
        arguments: Tampering.allCases)
    func refused(_ tampering: Tampering) async throws {
        let world = try await UpdateWorld.make()
        try await ChannelServer.serving(world.home + "/served") { server in
            let url = server.baseURL + "/channel"
            let expected = try await tamper(world, tampering, url: url)
            let before = world.pluginFiles()
            let result = try await world.microapp(["update", "--channel", url, "--plugins", world.plugins])
            #expect(result.status == 1, "\(result.out)\(result.err)")
            #expect(result.err.contains(expected), "\(result.err)")
            #expect(result.err.contains("to fix:"))
            #expect(!result.out.contains("installed"))
            #expect(world.pluginFiles() == before)
        }
        #expect(FileManager.default.contents(atPath: world.plugins + "/libTick.so") == (try await Tick.library(1)))
    }

    /// Publishes into `world`'s channel (served at `url`) with `tampering`; what the refusal says.
    private func tamper(_ world: UpdateWorld, _ tampering: Tampering, url: String) async throws -> String {
        let library = world.channel + "/releases/tick/2/libTick.so"
        switch tampering {
        case .libraryBytes:
            try await world.publish(2)
            var flipped = try Data(contentsOf: URL(fileURLWithPath: library))
            flipped[flipped.count / 2] ^= 1
            try flipped.write(to: URL(fileURLWithPath: library))
            return "its bytes are not the ones signed"
        case .indexSignature:
            try await world.publish(2)
            let index = world.channel + "/index.json"
            let text = try String(contentsOfFile: index, encoding: .utf8)
            try text.replacingOccurrences(of: "\"version\":1", with: "\"version\":7").write(
                toFile: index, atomically: true, encoding: .utf8)
            return "its signature does not verify"
        case .replayedIndex, .replayedUnderAnotherSpelling:
            try await world.publish(2)
            let names = ["index.json", "index.json.sig"]
            let old = try names.map { try Data(contentsOf: URL(fileURLWithPath: world.channel + "/" + $0)) }
            try await world.publish(3)
            // Another plugin folder of this person's takes index version 2 from the channel; then version 1 is served.
            let other = TickFolder(world, "other-plugins")
            try other.install(try await Tick.library(1))
            // Under another spelling of the same URL the record is the same: the channel is known by its key.
            let spelling =
                tampering == .replayedIndex ? url : url.replacingOccurrences(of: "/channel", with: "/./channel")
            let first = try await world.microapp(["update", "--channel", spelling, "--plugins", other.path])
            #expect(first.status == 0, "\(first.err)")
            for (name, bytes) in zip(names, old) {
                try bytes.write(to: URL(fileURLWithPath: world.channel + "/" + name))
            }
            return "older than version 2 seen from this channel before"
        case .expiredIndex:
            try await world.publish(2, now: Date().addingTimeInterval(-7200), lifetime: 3600)
            return "it expired at"
        case .untrustedKey:
            try await world.publish(2, key: "stranger")
            return "which you do not trust"
        case .newerSDK:
            try await world.publish(2, sdk: SDKVersion(major: SDKVersion.current.major + 1, minor: 0))
            return "SDK major \(SDKVersion.current.major + 1) is not loaded"
        case .longerDownload:
            try await world.publish(2)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: library))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(repeating: 0x90, count: 4096))
            try handle.close()
            return "it sent more than the"
        }
    }

    @Test(
        "a version signed only by a key later removed is never made running again: rollback passes it over, refuses it by name, and versions marks it untrusted"
    )
    func removedKeySticks() async throws {
        let world = try await UpdateWorld.make()
        let beta = try ReleaseKeyFile.generate("beta", in: world.folders).get()
        let store = ReleaseStore(folders: world.folders)
        let list = try #require(
            try store.trustList().get().trusting(KeyText.text(of: beta.publicKey), as: "beta", for: ["tick"]))
        #expect(store.save(list) == nil)
        // Release 2 signed by beta alone, in acme's channel.
        try await world.publish(2, key: "beta", index: "acme")
        try await ChannelServer.serving(world.home + "/served") { server in
            let url = server.baseURL + "/channel"
            let two = try await world.microapp(["update", "--channel", url, "--plugins", world.plugins])
            #expect(two.out.contains("installed tick 1 → 2"), "\(two.out)\(two.err)")
            let removed = try await world.microapp(["trust", "--remove", "beta"])
            #expect(removed.status == 0, "\(removed.err)")
            try await world.publish(3)
            let three = try await world.microapp(["update", "--channel", url, "--plugins", world.plugins])
            #expect(three.out.contains("installed tick 2 → 3"), "\(three.out)\(three.err)")

            let listed = try await world.microapp(["versions", "tick", "--plugins", world.plugins])
            #expect(
                listed.out.contains("  2  from \(url)  untrusted: its release record no longer verifies"),
                "\(listed.out)")
            #expect(!listed.out.contains("  1  kept from the folder  untrusted"))
            let named = try await world.microapp(["rollback", "tick", "--to", "2", "--plugins", world.plugins])
            #expect(named.status == 1)
            #expect(named.err.contains("tick 2: its release record no longer verifies"), "\(named.err)")
            #expect(FileManager.default.contents(atPath: world.plugins + "/libTick.so") == (try await Tick.library(3)))
            let back = try await world.microapp(["rollback", "tick", "--plugins", world.plugins])
            #expect(back.status == 0, "\(back.err)")
            #expect(back.out.contains("rolled back tick 3 → 1"), "\(back.out)")
            #expect(FileManager.default.contents(atPath: world.plugins + "/libTick.so") == (try await Tick.library(1)))
        }
    }

    @Test(
        "a truncated bad.json does not bring the version it marked back: update and rollback refuse with bad-versions-damaged and the folder stays as it was"
    )
    func damagedMarks() async throws {
        let world = try await UpdateWorld.make()
        try await world.publish(2)
        let url = world.channel
        let two = try await world.microapp(["update", "--channel", url, "--plugins", world.plugins])
        #expect(two.out.contains("installed tick 1 → 2"), "\(two.err)")
        let back = try await world.microapp(["rollback", "tick", "--plugins", world.plugins])
        #expect(back.out.contains("rolled back tick 2 → 1"), "\(back.err)")
        let marks = world.plugins + "/.versions/tick/bad.json"
        let whole = try #require(FileManager.default.contents(atPath: marks))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: marks))
        let before = world.pluginFiles()

        let again = try await world.microapp(["update", "--channel", url, "--plugins", world.plugins])
        #expect(again.status == 1, "\(again.out)\(again.err)")
        #expect(again.err.contains("\(marks): it cannot be read as tick's versions marked bad"), "\(again.err)")
        #expect(!again.out.contains("installed"))
        let rolled = try await world.microapp(["rollback", "tick", "--to", "2", "--plugins", world.plugins])
        #expect(rolled.status == 1)
        #expect(rolled.err.contains("cannot be read as tick's versions marked bad"), "\(rolled.err)")
        #expect(world.pluginFiles() == before)
    }

    @Test("a damaged plugins.lock refuses the update before anything is written: no .versions, the folder as it was")
    func damagedLockFirst() async throws {
        let world = try await UpdateWorld.make()
        try await world.publish(2)
        try Data("{ not a lock".utf8).write(to: URL(fileURLWithPath: world.plugins + "/plugins.lock"))
        let before = world.pluginFiles()
        let refused = try await world.microapp(["update", "--channel", world.channel, "--plugins", world.plugins])
        #expect(refused.status == 1)
        #expect(refused.err.contains("plugins.lock: it cannot be read"), "\(refused.err)")
        #expect(world.pluginFiles() == before)
        #expect(!FileManager.default.fileExists(atPath: world.plugins + "/.versions/tick"))
    }

    @Test("a channel that cannot be reached, or has no index, is named with the reason")
    func unreachable() async throws {
        let world = try await UpdateWorld.make()
        let port = try LoopbackHTTPServer.unusedPort()
        let refused = try await world.microapp([
            "update", "--channel", "http://127.0.0.1:\(port)/channel", "--plugins", world.plugins,
        ])
        #expect(refused.status == 1)
        #expect(refused.err.contains("http://127.0.0.1:\(port)/channel/index.json: it cannot be fetched"))
        try await ChannelServer.serving(world.home) { server in
            let missing = try await world.microapp([
                "update", "--channel", server.baseURL + "/nothing", "--plugins", world.plugins,
            ])
            #expect(missing.status == 1)
            #expect(missing.err.contains("/nothing/index.json: the server answered 404"))
        }
    }

    @Test("versions of a feature a folder does not run names what the folder runs, also when that is nothing")
    func versionsOfAnUnknownFeature() async throws {
        let world = try await UpdateWorld.make()
        let empty = try temporaryFolder("no-plugins").path
        let none = try await world.microapp(["versions", "Nope", "--plugins", empty])
        #expect(none.status == 1)
        #expect(none.err.contains("runs no such feature (it runs no feature)"), "\(none.err)")
    }
}

/// A plugin folder of the test's person.
struct TickFolder {
    let path: String

    /// The folder `name` in `world`'s home (made).
    init(_ world: UpdateWorld, _ name: String) {
        path = world.home + "/" + name
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Puts `library` in the folder as `libTick.so` by hand and locks the folder to it.
    func install(_ library: Data) throws {
        try library.write(to: URL(fileURLWithPath: path + "/libTick.so"))
        try PluginLock(libraries: [(path + "/libTick.so", "tick", SHA256Text.of(library))]).write(in: path)
    }
}
