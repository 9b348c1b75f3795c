import Foundation
import MicroappCore
import MicroappDigest

/// The detached signature beside a signed document (`index.json.sig` beside `index.json`): the signer's public key,
/// its id and the Ed25519 signature over the document's exact bytes.
public struct SignatureFile: Codable, Sendable, Equatable {
    /// The signer's public key, `ed25519:<base64>`: a person who does not trust it yet sees what to trust.
    public var key: String
    /// The key's id (`KeyText.id`).
    public var keyid: String
    /// The signature, base64.
    public var signature: String

    /// The signature of `document` by `key`.
    public init(signing document: Data, with key: Ed25519.PrivateKey) {
        self.key = KeyText.text(of: key.publicKey)
        self.keyid = KeyText.id(of: key.publicKey)
        self.signature = Data(key.signature(for: document)).base64EncodedString()
    }

    /// The file's bytes (canonical JSON).
    public func encoded() -> Data {
        // Three strings always encode.
        (try? CanonicalJSON.encode(self)) ?? Data()
    }

    /// What the file at `subject` says; a `bad-signed-document` problem when it is not a signature file.
    public static func decode(_ bytes: Data, subject: String) -> Result<SignatureFile, Problem> {
        guard let file = try? CanonicalJSON.decode(SignatureFile.self, from: bytes) else {
            return .failure(
                Problem(
                    .badDocument, subject: subject,
                    reason: "it is not a signature file (JSON with key, keyid, signature)",
                    fix: "publish again to write it anew, or ask the publisher to"))
        }
        return .success(file)
    }
}

/// Who signed a document that verified: the trusted name and the key.
public struct Signer: Sendable, Equatable {
    /// The name the person trusts the key under.
    public var name: String
    /// The key's text, `ed25519:<base64>`.
    public var key: String
    /// The feature ids the person trusts the key to sign (none: an entry written before keys were scoped).
    public var features: [String]

    /// A signer trusted as `name` with `key`, which may sign `features`.
    public init(name: String, key: String, features: [String]) {
        self.name = name
        self.key = key
        self.features = features
    }
}

extension TrustList {
    /// Checks that `signature` is a trusted key's over `document` (at `subject`): the signer, or an `untrusted-key`
    /// problem, or a problem with `failure`'s code when the signature does not verify.
    public func verify(
        _ document: Data, signature: SignatureFile, subject: String, failure: Problem.Code
    ) -> Result<Signer, Problem> {
        guard let (name, key) = trusted(signature.key) else {
            return .failure(
                Problem(
                    .untrustedKey, subject: subject,
                    reason: "it is signed by key \(signature.keyid) (\(signature.key)), which you do not trust",
                    fix:
                        "if you know the key is the publisher's, trust it for the features it publishes with `microapp trust \(signature.key) --name TEAM --feature ID`; otherwise do not use this channel"
                ))
        }
        guard let bytes = Data(base64Encoded: signature.signature), key.verifies([UInt8](bytes), for: document)
        else {
            return .failure(
                Problem(
                    failure, subject: subject,
                    reason:
                        "its signature does not verify against \(name)'s key \(signature.keyid): it was changed after signing, or signed by another key",
                    fix: "do not use it; fetch it again, and tell the publisher if it persists"))
        }
        return .success(Signer(name: name, key: signature.key, features: features[name] ?? []))
    }
}
