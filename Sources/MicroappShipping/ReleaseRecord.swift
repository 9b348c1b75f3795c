import Foundation
import MicroappCore
import MicroappDigest
import MicroappSDK

/// What a release of one feature is, signed by the team's key: the feature, its version (from its manifest), the
/// SDK it was built against, and the files (library and manifest) with their hashes and sizes.
///
/// A release is a folder of four files (`ReleaseLayout`): the library, `manifest.json`, `release.json` (this record,
/// canonical JSON) and `release.json.sig` (its `SignatureFile`).
public struct ReleaseRecord: Codable, Sendable, Equatable {
    /// What kind of document this is, so that an index is never taken for a release.
    public var type = "microapp-release"
    /// The feature's id, from its manifest.
    public var feature: String
    /// The feature's version, from its manifest; releases of one feature only go up.
    public var version: Int
    /// The SDK version the library was built against, `major.minor`.
    public var sdk: String
    /// The library file (its path is its file name in the release folder).
    public var library: FileEntry
    /// The manifest as data (`manifest.json`).
    public var manifest: FileEntry
    /// When it was made.
    public var created: Date

    /// A record of the given files.
    public init(
        feature: String, version: Int, sdk: SDKVersion, library: FileEntry, manifest: FileEntry, created: Date
    ) {
        self.feature = feature
        self.version = version
        self.sdk = sdk.description
        self.library = library
        self.manifest = manifest
        self.created = created
    }
}

/// A release made and signed, ready to be written as its folder.
public struct SignedRelease: Sendable, Equatable {
    /// The record.
    public var record: ReleaseRecord
    /// `release.json`'s bytes: what the signature covers.
    public var recordBytes: Data
    /// `release.json.sig`'s contents.
    public var signature: SignatureFile

    /// Makes the release of `library` (named `libraryName`) with `manifest`, as the manifest's feature id and
    /// version say, built for `sdk`, signed with `key` at `now`.
    public static func make(
        library: Data, libraryName: String, manifest: Data, feature: String, version: Int, sdk: SDKVersion,
        key: Ed25519.PrivateKey, now: Date
    ) -> SignedRelease {
        let record = ReleaseRecord(
            feature: feature, version: version, sdk: sdk, library: FileEntry(path: libraryName, bytes: library),
            manifest: FileEntry(path: ReleaseLayout.manifest, bytes: manifest), created: now)
        // A record of strings, numbers and a date always encodes.
        let bytes = (try? CanonicalJSON.encode(record)) ?? Data()
        return SignedRelease(record: record, recordBytes: bytes, signature: SignatureFile(signing: bytes, with: key))
    }

    /// The release whose `release.json` is `recordBytes` and whose signature file is `signatureBytes`, read from
    /// `subject`: the record when a key in `trust` signed it, else the problem.
    public static func verify(
        recordBytes: Data, signatureBytes: Data, subject: String, trust: TrustList
    ) -> Result<(SignedRelease, Signer), Problem> {
        let signature: SignatureFile
        switch SignatureFile.decode(signatureBytes, subject: subject + ".sig") {
        case .success(let file): signature = file
        case .failure(let problem): return .failure(problem)
        }
        let signer: Signer
        switch trust.verify(recordBytes, signature: signature, subject: subject, failure: .releaseSignature) {
        case .success(let found): signer = found
        case .failure(let problem): return .failure(problem)
        }
        guard let record = try? CanonicalJSON.decode(ReleaseRecord.self, from: recordBytes),
            record.type == "microapp-release", ReleaseLayout.isFileName(record.library.path),
            record.manifest.path == ReleaseLayout.manifest, ReleaseLayout.isFileName(record.feature)
        else {
            return .failure(
                Problem(
                    .badDocument, subject: subject, reason: "it is signed but is not a release record",
                    fix: "make the release again with `microapp release`"))
        }
        return .success((SignedRelease(record: record, recordBytes: recordBytes, signature: signature), signer))
    }
}

/// The files of a release folder, and of each release in a channel (`releases/<feature>/<version>/`).
public enum ReleaseLayout {
    /// The manifest as data.
    public static let manifest = "manifest.json"
    /// The signed record.
    public static let record = "release.json"
    /// The record's signature.
    public static let signature = "release.json.sig"

    /// Whether `name` is a plain file name (no folder, not hidden, no control characters): what a release's files
    /// and a feature's id must be to become paths.
    public static func isFileName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 255 && !name.hasPrefix(".") && !name.contains("/")
            && !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }
    }
}
