import Foundation
import MicroappCore
import MicroappDigest

/// Adding a release to a channel: the new index lists it under its feature with every file's hash and size, goes
/// up by one version, expires `lifetime` after now, and is signed by the publisher's key.
public struct ChannelPublication: Sendable, Equatable {
    /// The new index.
    public var index: ChannelIndex
    /// `index.json`'s bytes.
    public var indexBytes: Data
    /// `index.json.sig`'s contents.
    public var signature: SignatureFile
    /// Where the release's files go, relative to the channel's top.
    public var folder: String

    /// How long an index stays valid unless told otherwise: a week (a channel re-signs at least that often).
    public static let defaultLifetime: TimeInterval = 7 * 24 * 3600

    /// Publishes `release` (its library and manifest bytes given to be listed) onto `current` (nil for a new
    /// channel, whose id is then `channel`), signed by `key`; a `not-an-update` problem when the channel has that
    /// version or a newer one. An index without an id (published before ids) gets `channel`.
    public static func publish(
        _ release: SignedRelease, library: Data, manifest: Data, onto current: ChannelIndex?,
        key: Ed25519.PrivateKey, now: Date, lifetime: TimeInterval = defaultLifetime, channel: String? = nil
    ) -> Result<ChannelPublication, Problem> {
        let record = release.record
        if let latest = current?.latest(record.feature), latest.version >= record.version {
            return .failure(
                Problem(
                    .notAnUpdate, subject: "\(record.feature) \(record.version)",
                    reason:
                        "the channel has \(record.feature) \(latest.version) already; releases of a feature only go up",
                    fix: "raise the version in the feature's manifest, make the release again and publish that"))
        }
        for (entry, bytes) in [(record.library, library), (record.manifest, manifest)]
        where FileEntry(path: entry.path, bytes: bytes) != entry {
            return .failure(FileCheck.mismatch(entry, FileEntry(path: entry.path, bytes: bytes), subject: entry.path))
        }
        let folder = ChannelLayout.folder(feature: record.feature, version: record.version)
        let signature = release.signature.encoded()
        let files = [
            FileEntry(path: record.library.path, bytes: library),
            FileEntry(path: ReleaseLayout.manifest, bytes: manifest),
            FileEntry(path: ReleaseLayout.record, bytes: release.recordBytes),
            FileEntry(path: ReleaseLayout.signature, bytes: signature),
        ].map { $0.at(folder + "/" + $0.path) }
        var index = current ?? ChannelIndex(version: 0, expires: now)
        index.channel = index.channel ?? channel
        index.features[record.feature, default: []].append(
            ChannelIndex.Entry(version: record.version, sdk: record.sdk, files: files))
        return .success(signing(index, key: key, now: now, lifetime: lifetime, folder: folder))
    }

    /// `index` one version up, expiring `lifetime` after now, signed by `key`: a channel's index re-signed by the
    /// key that replaces its publisher's (`folder` is empty: no release was added).
    public static func signing(
        _ index: ChannelIndex, key: Ed25519.PrivateKey, now: Date, lifetime: TimeInterval = defaultLifetime,
        folder: String = ""
    ) -> ChannelPublication {
        var index = index
        index.version += 1
        index.expires = now.addingTimeInterval(lifetime)
        let bytes = (try? CanonicalJSON.encode(index)) ?? Data()
        return ChannelPublication(
            index: index, indexBytes: bytes, signature: SignatureFile(signing: bytes, with: key), folder: folder)
    }
}
