import Foundation
import MicroappDigest

/// How keys are written down: a public key as `ed25519:<base64>` (the text a team shares and a person trusts), a
/// private key as `ed25519-private:<base64>` (the text of the key file), and a short key id (16 hex digits of the
/// public key's SHA-256) that signatures name.
public enum KeyText {
    /// What a public key's text starts with.
    public static let publicPrefix = "ed25519:"
    /// What a private key's text starts with.
    public static let privatePrefix = "ed25519-private:"

    /// `ed25519:<base64>`.
    public static func text(of key: Ed25519.PublicKey) -> String {
        publicPrefix + Data(key.bytes).base64EncodedString()
    }

    /// `ed25519-private:<base64>`.
    public static func text(of key: Ed25519.PrivateKey) -> String {
        privatePrefix + Data(key.bytes).base64EncodedString()
    }

    /// The 16-hex-digit id of `key`.
    public static func id(of key: Ed25519.PublicKey) -> String { String(SHA256.hex(of: key.bytes).prefix(16)) }

    /// The public key written as `text` (surrounding white space ignored); nil for anything else.
    public static func publicKey(_ text: String) -> Ed25519.PublicKey? {
        bytes(text, prefix: publicPrefix).flatMap { Ed25519.PublicKey(bytes: $0) }
    }

    /// The private key written as `text` (surrounding white space ignored); nil for anything else.
    public static func privateKey(_ text: String) -> Ed25519.PrivateKey? {
        bytes(text, prefix: privatePrefix).flatMap { Ed25519.PrivateKey(bytes: $0) }
    }

    private static func bytes(_ text: String, prefix: String) -> [UInt8]? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix(prefix), let data = Data(base64Encoded: String(trimmed.dropFirst(prefix.count))) else {
            return nil
        }
        return [UInt8](data)
    }
}
