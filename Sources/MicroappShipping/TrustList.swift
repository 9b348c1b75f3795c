import Foundation
import MicroappDigest

/// The keys a person trusts to sign releases and channels, by the name they gave each, and the feature ids each may
/// sign (`microapp trust KEY --name TEAM --feature ID…`: The Update Framework's delegated targets, in small). It
/// belongs to the person, like the lock and the probe cache: nothing a channel serves adds to it.
public struct TrustList: Codable, Sendable, Equatable {
    /// Name → public key text (`ed25519:<base64>`).
    public var keys: [String: String]
    /// Name → the feature ids its key may sign, sorted. A name missing here (a list written before keys were
    /// scoped) signs nothing until it is trusted again with `--feature`.
    public var features: [String: [String]]

    /// A list of `keys`, each scoped to the ids `features` gives it.
    public init(keys: [String: String] = [:], features: [String: [String]] = [:]) {
        self.keys = keys
        self.features = features
    }

    /// Reads lists written before scopes, which have `keys` alone.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        keys = try container.decode([String: String].self, forKey: .keys)
        features = try container.decodeIfPresent([String: [String]].self, forKey: .features) ?? [:]
    }

    /// The list with `key` trusted as `name` to sign the features `ids` (replacing what `name` was); nil when `key`
    /// is not a public key's text or `ids` names no feature.
    public func trusting(_ key: String, as name: String, for ids: [String]) -> TrustList? {
        guard let parsed = KeyText.publicKey(key), !ids.isEmpty else { return nil }
        var list = self
        list.keys[name] = KeyText.text(of: parsed)
        list.features[name] = Set(ids).sorted()
        return list
    }

    /// The list without the key trusted as `name`; nil when no key is trusted under that name.
    public func removing(_ name: String) -> TrustList? {
        guard keys[name] != nil else { return nil }
        var list = self
        list.keys[name] = nil
        list.features[name] = nil
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
