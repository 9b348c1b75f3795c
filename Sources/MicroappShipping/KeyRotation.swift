import Foundation
import MicroappCore
import MicroappDigest

/// A key's announcement of the key that replaces it, signed by the old key (The Update Framework's root rotation, in
/// small): a machine that trusts the old key trusts the new one in its place, for the same feature ids, and the old
/// key no more. A channel keeps every announcement it made in `rotations.json`, oldest first, so a machine that
/// missed some follows the whole chain.
public struct KeyRotation: Codable, Sendable, Equatable {
    /// What kind of document this is, so that no other signed document is taken for an announcement.
    public var type = "microapp-key-rotation"
    /// The key retired, `ed25519:<base64>`.
    public var old: String
    /// The key that takes its place.
    public var new: String
    /// When it was announced.
    public var created: Date

    /// The announcement that `new` replaces `old`.
    public init(old: String, new: String, created: Date) {
        self.old = old
        self.new = new
        self.created = created
    }
}

/// A channel's `rotations.json`: each announcement's exact bytes (base64) and its signature by the old key.
public struct RotationFile: Codable, Sendable, Equatable {
    /// One signed announcement.
    public struct Announcement: Codable, Sendable, Equatable {
        /// The `KeyRotation`'s canonical JSON bytes, base64: the signature covers exactly these.
        public var document: String
        /// The old key's signature over them.
        public var signature: SignatureFile
    }

    /// What kind of document this is.
    public var type = "microapp-key-rotations"
    /// Every announcement, oldest first.
    public var announcements: [Announcement] = []

    /// An empty file.
    public init() {}

    /// The file with `old` announcing `new` appended, signed by `old`.
    public func announcing(_ new: Ed25519.PublicKey, by old: Ed25519.PrivateKey, now: Date) -> RotationFile {
        let rotation = KeyRotation(
            old: KeyText.text(of: old.publicKey), new: KeyText.text(of: new), created: now)
        // Two strings and a date always encode.
        let bytes = (try? CanonicalJSON.encode(rotation)) ?? Data()
        var file = self
        file.announcements.append(
            Announcement(document: bytes.base64EncodedString(), signature: SignatureFile(signing: bytes, with: old)))
        return file
    }

    /// The file's bytes (canonical JSON).
    public func encoded() -> Data { (try? CanonicalJSON.encode(self)) ?? Data() }

    /// The file in `bytes`; nil when it is not one.
    public static func decode(_ bytes: Data) -> RotationFile? {
        guard let file = try? CanonicalJSON.decode(RotationFile.self, from: bytes),
            file.type == "microapp-key-rotations"
        else { return nil }
        return file
    }
}

extension TrustList {
    /// The list after following every announcement of `file` whose old key it trusts and whose signature by that key
    /// verifies, in a chain (A → B, then B → C): each name's key becomes the new one, its feature ids unchanged. An
    /// announcement of a key trusted under another name is not followed (it would merge two scopes). Also says each
    /// rotation followed, for people.
    public func following(_ file: RotationFile) -> (list: TrustList, rotated: [String]) {
        var list = self
        var rotated: [String] = []
        var pending = file.announcements
        var moved = true
        while moved {
            moved = false
            pending.removeAll { announcement in
                guard let (name, newKey) = list.rotation(announcement) else { return false }
                list.keys[name] = newKey
                rotated.append(
                    "\(name)'s key rotated to \(KeyText.publicKey(newKey).map(KeyText.id(of:)) ?? newKey), announced by its old key \(announcement.signature.keyid)"
                )
                moved = true
                return true
            }
        }
        return (list, rotated)
    }

    /// The name whose key `announcement` rotates and the new key's text, when it verifies against this list.
    private func rotation(_ announcement: RotationFile.Announcement) -> (String, String)? {
        guard let bytes = Data(base64Encoded: announcement.document),
            let rotation = try? CanonicalJSON.decode(KeyRotation.self, from: bytes),
            rotation.type == "microapp-key-rotation", let newKey = KeyText.publicKey(rotation.new),
            KeyText.publicKey(rotation.old) == KeyText.publicKey(announcement.signature.key),
            case .success(let signer) = verify(
                bytes, signature: announcement.signature, subject: "", failure: .badDocument),
            trusted(rotation.new) == nil
        else { return nil }
        return (signer.name, KeyText.text(of: newKey))
    }
}
