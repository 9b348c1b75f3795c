import Foundation
import MicroappCore
import MicroappDigest
import MicroappPlatform
import MicroappSDK

/// A release folder and a channel folder on disk: writing a release, reading one back verified, publishing it into
/// a channel (its files under `releases/<feature>/<version>/`, then a new signed index), and reading a channel's
/// files no further than the index allows. The decisions are `MicroappRelease`'s; this file only moves bytes.
public enum ChannelFolder {
    /// Writes `release` with its library and manifest into the new folder `folder` (refused when it exists).
    public static func writeRelease(_ release: SignedRelease, library: Data, manifest: Data, to folder: String)
        -> Problem?
    {
        if FileFacts.exists(folder) {
            return Problem(
                code: .releaseExists, subject: folder, reason: "a release folder is never written over",
                fix: "remove it first, or raise the feature's version and make a new release")
        }
        return writeFiles(
            [
                (release.record.library.path, library), (ReleaseLayout.manifest, manifest),
                (ReleaseLayout.record, release.recordBytes), (ReleaseLayout.signature, release.signature.encoded()),
            ], in: folder)
    }

    /// A release read from `folder`: its record signed by a key in `trust`, its library and manifest the record's.
    public static func readRelease(_ folder: String, trust: TrustList) -> Result<
        (release: SignedRelease, library: Data, manifest: Data), Problem
    > {
        let recordPath = folder + "/" + ReleaseLayout.record
        guard let record = Files.contents(recordPath),
            let signature = Files.contents(folder + "/" + ReleaseLayout.signature)
        else {
            return .failure(
                Problem(
                    code: .notARelease, subject: folder,
                    reason: "it has no \(ReleaseLayout.record) and \(ReleaseLayout.signature)",
                    fix: "name a folder `microapp release` wrote"))
        }
        let release: SignedRelease
        switch SignedRelease.verify(recordBytes: record, signatureBytes: signature, subject: recordPath, trust: trust)
        {
        case .success(let (verified, _)): release = verified
        case .failure(let problem): return .failure(problem)
        }
        var contents: [Data] = []
        for entry in [release.record.library, release.record.manifest] {
            let path = folder + "/" + (entry.path as NSString).lastPathComponent
            switch readBounded(path, entry: entry) {
            case .success(let bytes): contents.append(bytes)
            case .failure(let problem): return .failure(problem)
            }
        }
        return .success((release, contents[0], contents[1]))
    }

    /// Publishes the release in `releaseFolder` into the channel folder `channel` (made when missing), signed by
    /// `key` at `now`: the release is checked against `trust` and the channel's current index against `key` (a
    /// publisher never builds on an index it did not sign), the release's files are written, then the new index.
    public static func publish(
        _ releaseFolder: String, to channel: String, key: Ed25519.PrivateKey, trust: TrustList, now: Date,
        lifetime: TimeInterval = ChannelPublication.defaultLifetime
    ) -> Result<ChannelPublication, Problem> {
        let read: (release: SignedRelease, library: Data, manifest: Data)
        switch readRelease(releaseFolder, trust: trust) {
        case .success(let found): read = found
        case .failure(let problem): return .failure(problem)
        }
        var current: ChannelIndex?
        switch ownIndex(of: channel, key: key) {
        case .success(let found): current = found
        case .failure(let problem): return .failure(problem)
        }
        let publication: ChannelPublication
        switch ChannelPublication.publish(
            read.release, library: read.library, manifest: read.manifest, onto: current, key: key, now: now,
            lifetime: lifetime, channel: (channel as NSString).lastPathComponent)
        {
        case .success(let made): publication = made
        case .failure(let problem): return .failure(problem)
        }
        let folder = channel + "/" + publication.folder
        if let problem = writeRelease(read.release, library: read.library, manifest: read.manifest, to: folder) {
            return .failure(problem)
        }
        return writeIndex(publication, in: channel)
    }

    /// Rotates the publisher's key of the channel folder `channel`: `old` (which signed its index) announces `new` in
    /// `rotations.json`, and the index is re-signed by `new`, one version up. Machines that trust `old` trust `new`
    /// in its place at their next update (`TrustList.following`); the file after the announcement is returned.
    public static func rotate(
        _ channel: String, from old: Ed25519.PrivateKey, to new: Ed25519.PrivateKey, now: Date,
        lifetime: TimeInterval = ChannelPublication.defaultLifetime
    ) -> Result<RotationFile, Problem> {
        let current: ChannelIndex
        switch ownIndex(of: channel, key: old) {
        case .success(let found?): current = found
        case .success(nil):
            return .failure(
                Problem(
                    code: .channelMissingFile, subject: channel + "/" + ChannelLayout.index,
                    reason: "the channel has no index to re-sign", fix: "publish a release first, then rotate"))
        case .failure(let problem): return .failure(problem)
        }
        let path = channel + "/" + ChannelLayout.rotations
        var rotations = RotationFile()
        if let bytes = Files.contents(path) {
            guard let file = RotationFile.decode(bytes) else {
                return .failure(
                    Problem(
                        code: .badDocument, subject: path, reason: "it is not a channel's key rotations",
                        fix: "restore it from a copy of the channel; the announcements in it must stay"))
            }
            rotations = file
        }
        rotations = rotations.announcing(new.publicKey, by: old, now: now)
        // The announcement before the index it explains: a reader between the two follows it, then finds the index.
        if let problem = writeFiles([(ChannelLayout.rotations, rotations.encoded())], in: channel) {
            return .failure(problem)
        }
        let publication = ChannelPublication.signing(current, key: new, now: now, lifetime: lifetime)
        return writeIndex(publication, in: channel).map { _ in rotations }
    }

    /// The index of the channel folder `channel`, checked to be signed by `key` (a publisher never builds on an
    /// index it did not sign); nil for a channel with no index yet.
    private static func ownIndex(of channel: String, key: Ed25519.PrivateKey) -> Result<ChannelIndex?, Problem> {
        guard let bytes = Files.contents(channel + "/" + ChannelLayout.index) else {
            return .success(nil)
        }
        let own = TrustList(keys: ["publisher": KeyText.text(of: key.publicKey)])
        let signature = Files.contents(channel + "/" + ChannelLayout.signature) ?? Data()
        // The publisher's own index may have expired; it is re-signed now, so only the signature counts here.
        let verification = ChannelVerification(channel: channel, trust: own, seen: SeenVersions(), sdk: .current)
        return verification.verifyIndex(bytes, signature: signature, now: .distantPast).map { $0.index }
    }

    /// Writes `publication`'s index and signature into `channel`.
    private static func writeIndex(_ publication: ChannelPublication, in channel: String) -> Result<
        ChannelPublication, Problem
    > {
        // The signature first, then the index: a reader between the two sees a mismatch and retries, never an
        // unsigned index taken for signed.
        if let problem = writeFiles(
            [
                (ChannelLayout.signature, publication.signature.encoded()),
                (ChannelLayout.index, publication.indexBytes),
            ], in: channel)
        {
            return .failure(problem)
        }
        return .success(publication)
    }

    /// The bytes of `path`, read no further than `entry.size` allows (one byte more, to notice a longer file), and
    /// checked against the entry's hash and size.
    public static func readBounded(_ path: String, entry: FileEntry) -> Result<Data, Problem> {
        var download = BoundedDownload(entry: entry, subject: path)
        if let problem = ChannelSource.stream(file: path, limit: entry.size + 1, into: { download.append($0) }) {
            return .failure(problem)
        }
        return download.finish()
    }

    /// Writes each (name, bytes) into `folder` (made when missing), each atomically.
    private static func writeFiles(_ files: [(String, Data)], in folder: String) -> Problem? {
        do {
            try Files.makeDirectory(folder)
            for (name, bytes) in files {
                try Files.replace(folder + "/" + name, with: bytes)
            }
            return nil
        } catch {
            return Problem(
                code: .releaseWrite, subject: folder, reason: "its files could not be written (\(error))",
                fix: "check that the folder is writable and the disk has room")
        }
    }
}
