import CCrypto
import Foundation

/// Ed25519 signatures (RFC 8032) computed by OpenSSL's libcrypto: the team's release key and a channel publisher's
/// key. Keys and signatures are raw bytes here; how they are written down is the release rules' business.
public enum Ed25519 {
    /// The length of a private key (its seed) and of a public key.
    public static let keyLength = 32
    /// The length of a signature.
    public static let signatureLength = 64

    /// A private key: signs, and knows its public key.
    public struct PrivateKey: Sendable, Equatable {
        /// The 32-byte seed.
        public let bytes: [UInt8]
        /// The matching public key.
        public let publicKey: PublicKey

        /// A new key from the system's random source; nil when libcrypto could not make one.
        public static func generate() -> PrivateKey? {
            var seed = [UInt8](repeating: 0, count: keyLength)
            var point = [UInt8](repeating: 0, count: keyLength)
            guard microapp_ed25519_generate(&seed, &point) == 1 else { return nil }
            return PrivateKey(seed: seed, publicKey: PublicKey(trusted: point))
        }

        /// The key whose seed is `bytes`; nil unless they are 32 bytes libcrypto accepts.
        public init?(bytes: [UInt8]) {
            guard bytes.count == keyLength else { return nil }
            var point = [UInt8](repeating: 0, count: keyLength)
            guard microapp_ed25519_public_key(bytes, &point) == 1 else { return nil }
            self.init(seed: bytes, publicKey: PublicKey(trusted: point))
        }

        private init(seed: [UInt8], publicKey: PublicKey) {
            self.bytes = seed
            self.publicKey = publicKey
        }

        /// The 64-byte signature over `message`.
        public func signature(for message: Data) -> [UInt8] {
            var signature = [UInt8](repeating: 0, count: signatureLength)
            let signed = message.withUnsafeBytes { microapp_ed25519_sign(bytes, $0.baseAddress, $0.count, &signature) }
            // Signing with a valid key fails only when libcrypto cannot allocate.
            guard signed == 1 else { fatalError("libcrypto could not sign \(message.count) bytes") }
            return signature
        }
    }

    /// A public key: checks signatures.
    public struct PublicKey: Sendable, Hashable {
        /// The 32-byte encoded point.
        public let bytes: [UInt8]

        /// The key whose encoding is `bytes`; nil unless they are 32 bytes.
        public init?(bytes: [UInt8]) {
            guard bytes.count == keyLength else { return nil }
            self.bytes = bytes
        }

        fileprivate init(trusted bytes: [UInt8]) { self.bytes = bytes }

        /// Whether `signature` is this key's over `message` (false for a signature of the wrong length).
        public func verifies(_ signature: [UInt8], for message: Data) -> Bool {
            guard signature.count == signatureLength else { return false }
            return message.withUnsafeBytes { microapp_ed25519_verify(bytes, $0.baseAddress, $0.count, signature) } == 1
        }
    }
}
