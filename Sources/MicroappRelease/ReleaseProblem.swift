import MicroappCore
import MicroappSDK

/// The stable codes of what the release rules refuse, each a distinct `Problem` code.
public enum ReleaseCode: String, Sendable, CaseIterable {
    /// A signed document (release record or index) whose signature file or contents cannot be read.
    case badDocument = "bad-signed-document"
    /// Signed by a key the person does not trust.
    case untrustedKey = "untrusted-key"
    /// The index's signature does not verify against the key it names.
    case indexSignature = "index-signature"
    /// A release record's signature does not verify against the key it names.
    case releaseSignature = "release-signature"
    /// The index is past its expiry.
    case indexExpired = "index-expired"
    /// The index expires further ahead than a host accepts (`ChannelVerification.maximumLifetime`).
    case indexExpiryTooFar = "index-expiry-too-far"
    /// The index's version is lower than one seen before from the same channel.
    case indexRollback = "index-rollback"
    /// A release older than one seen before of the same feature from the same channel.
    case releaseRollback = "release-rollback"
    /// A file whose hash or size differs from what the signed document says.
    case fileMismatch = "file-mismatch"
    /// A download that ran past the size the index gives.
    case downloadTooLarge = "download-too-large"
    /// A release built for an SDK this host does not speak.
    case releaseSDK = "release-sdk"
    /// A release whose version is not above the installed one.
    case notAnUpdate = "not-an-update"
    /// A release record that does not say what the index says of it.
    case releaseMismatch = "release-mismatch"
    /// A release or index entry of a feature the signing key is not trusted to sign.
    case keyScope = "key-scope"
}

extension Problem {
    /// A problem with one of the release rules' codes.
    init(_ code: ReleaseCode, subject: String, reason: String, fix: String) {
        self.init(Code(rawValue: code.rawValue), subject: subject, reason: reason, fix: fix)
    }
}
