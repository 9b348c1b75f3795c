import Foundation
import MicroappDigest

/// The keys a person trusts to sign releases and channels, by the name they gave each (`microapp trust KEY --name
/// TEAM`). It belongs to the person, like the lock and the probe cache: nothing a channel serves adds to it.
public struct TrustList: Codable, Sendable, Equatable {
    /// Name → public key text (`ed25519:<base64>`).
    public var keys: [String: String]

    /// A list of `keys`.
    public init(keys: [String: String] = [:]) { self.keys = keys }

    /// The list with `key` trusted as `name` (replacing what `name` was); nil when `key` is not a public key's text.
    public func trusting(_ key: String, as name: String) -> TrustList? {
        guard let parsed = KeyText.publicKey(key) else { return nil }
        var list = self
        list.keys[name] = KeyText.text(of: parsed)
        return list
    }

    /// The list without the key trusted as `name`; nil when no key is trusted under that name.
    public func removing(_ name: String) -> TrustList? {
        guard keys[name] != nil else { return nil }
        var list = self
        list.keys[name] = nil
        return list
    }

    /// The name and key under which `text` is trusted; nil when it is not.
    public func trusted(_ text: String) -> (String, Ed25519.PublicKey)? {
        guard let key = KeyText.publicKey(text) else { return nil }
        let wanted = KeyText.text(of: key)
        guard let name = keys.keys.sorted().first(where: { keys[$0] == wanted }) else { return nil }
        return (name, key)
    }

    /// The list's file bytes (canonical JSON).
    public func encoded() -> Data { (try? CanonicalJSON.encode(self)) ?? Data() }
}
