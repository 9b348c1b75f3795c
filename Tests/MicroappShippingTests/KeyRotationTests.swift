import Foundation
import MicroappDigest
import MicroappShipping
import TestScratch
import Testing

/// A key rotates by an announcement its old key signs: the trust list follows a chain of them, keeping each name's
/// feature ids, and follows nothing it cannot verify against a key it already trusts.
@Suite struct KeyRotationTests {
    let a = Ed25519.PrivateKey.generate()!
    let b = Ed25519.PrivateKey.generate()!
    let c = Ed25519.PrivateKey.generate()!
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func text(_ key: Ed25519.PrivateKey) -> String { KeyText.text(of: key.publicKey) }

    var trust: TrustList { TrustList().trusting(text(a), as: "acme", for: ["tick"])! }

    @Test(.offThePool) func aChainOfAnnouncementsIsFollowedAndTheOldKeysAreNoLongerTrusted() throws {
        let file = RotationFile().announcing(b.publicKey, by: a, now: now).announcing(c.publicKey, by: b, now: now)
        let decoded = try #require(RotationFile.decode(file.encoded()))
        let (list, notes) = trust.following(decoded)
        #expect(list.keys == ["acme": text(c)])
        #expect(list.features == ["acme": ["tick"]])
        #expect(notes.count == 2 && notes[0].contains("acme's key rotated to \(KeyText.id(of: b.publicKey))"))
        #expect(list.trusted(text(a)) == nil && list.trusted(text(b)) == nil)
        // Listed newest first, the chain is followed all the same.
        let reversed = RotationFile().announcing(c.publicKey, by: b, now: now).announcing(b.publicKey, by: a, now: now)
        #expect(trust.following(reversed).list.keys == ["acme": text(c)])
    }

    @Test(.offThePool) func anAnnouncementNotSignedByATrustedOldKeyIsNotFollowed() throws {
        // Signed by a key nobody trusts.
        let stranger = RotationFile().announcing(c.publicKey, by: b, now: now)
        #expect(trust.following(stranger).list == trust)
        // A document naming acme's key as old, signed by another trusted key.
        let other = try #require(trust.trusting(text(b), as: "other", for: ["tock"]))
        let forged = RotationFile().announcing(c.publicKey, by: b, now: now)
        var file = forged
        let rotation = KeyRotation(old: text(a), new: text(c), created: now)
        let bytes = try CanonicalJSON.encode(rotation)
        file.announcements[0].document = bytes.base64EncodedString()
        #expect(other.following(file).list == other, "the signature is over other bytes")
        file.announcements[0].signature = SignatureFile(signing: bytes, with: b)
        #expect(other.following(file).list == other, "b signed it, but it says a is old")
        // Rotating onto a key trusted under another name would merge two scopes.
        let merge = RotationFile().announcing(b.publicKey, by: a, now: now)
        #expect(other.following(merge).list == other)
        // Not a rotations file.
        #expect(RotationFile.decode(Data(#"{"type":"microapp-channel-index"}"#.utf8)) == nil)
    }
}
