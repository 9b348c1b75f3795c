import Foundation
import MicroappCore
import MicroappSDK

/// An index that verified: signed by a trusted key, not expired, not older than one seen before.
public struct VerifiedIndex: Sendable, Equatable {
    /// The index.
    public var index: ChannelIndex
    /// Who signed it.
    public var signer: Signer

    /// The names the channel's record of versions seen is kept under: the channel as the person names it, and,
    /// when the index names its channel, the signer's key with that id — the same for every URL, spelling and
    /// mirror of the channel, so an older index is not taken under another spelling.
    public func recordNames(channel: String) -> [String] {
        [channel] + (index.channel.map { ["\(signer.key)#\($0)"] } ?? [])
    }
}

/// The decisions a host makes about what a channel serves, in the order The Update Framework teaches: the index's
/// signature by a trusted key, its expiry, its version against the highest seen; then, for each release, the SDK it
/// needs, its version against the installed one and the highest seen, and each file against the index's hash and
/// size. Every input is a value (bytes, the trust list, the clock's now, what was seen): no file or network here.
public struct ChannelVerification: Sendable {
    /// The furthest ahead an index may expire for a host to take it: a year and a day.
    public static let maximumLifetime: TimeInterval = 366 * 24 * 3600

    /// The channel as the person names it (its URL or folder): the key of what was seen from it.
    public var channel: String
    /// The keys the person trusts.
    public var trust: TrustList
    /// What was seen from channels before.
    public var seen: SeenVersions
    /// The SDK this host speaks.
    public var sdk: SDKVersion
    /// The names of the channel's record (`VerifiedIndex.recordNames`), once its index verified: releases are checked
    /// against the highest seen under any of them.
    public var recordNames: [String] = []

    /// Decisions about `channel` with the given trust, record and SDK.
    public init(channel: String, trust: TrustList, seen: SeenVersions, sdk: SDKVersion) {
        self.channel = channel
        self.trust = trust
        self.seen = seen
        self.sdk = sdk
    }

    /// The index whose bytes are `indexBytes` with the signature file `signatureBytes`, verified at `now`.
    public func verifyIndex(_ indexBytes: Data, signature signatureBytes: Data, now: Date) -> Result<
        VerifiedIndex, Problem
    > {
        let subject = channel + "/" + ChannelLayout.index
        let signature: SignatureFile
        switch SignatureFile.decode(signatureBytes, subject: channel + "/" + ChannelLayout.signature) {
        case .success(let file): signature = file
        case .failure(let problem): return .failure(problem)
        }
        let signer: Signer
        switch trust.verify(indexBytes, signature: signature, subject: subject, failure: .indexSignature) {
        case .success(let found): signer = found
        case .failure(let problem): return .failure(problem)
        }
        guard let index = try? CanonicalJSON.decode(ChannelIndex.self, from: indexBytes),
            index.type == "microapp-channel-index"
        else {
            return .failure(
                Problem(
                    .badDocument, subject: subject, reason: "it is signed but is not a channel index",
                    fix: "tell the publisher; publishing a release again writes a new index"))
        }
        if let path = index.features.flatMap({ feature, entries in
            entries.flatMap { entry in entry.files.map(\.path).filter { !Self.isReleasePath($0, feature, entry) } }
        }).first {
            return .failure(
                Problem(
                    .badDocument, subject: subject,
                    reason:
                        "it lists '\(path)', which is not a file of a release's folder (releases/<feature>/<version>/<name>)",
                    fix: "tell the publisher; publishing a release again writes a new index"))
        }
        guard now < index.expires else {
            return .failure(
                Problem(
                    .indexExpired, subject: subject,
                    reason:
                        "it expired at \(Self.text(index.expires)) (now \(Self.text(now))): an index nobody re-signs may hide newer releases",
                    fix: "ask the publisher to publish again (which re-signs the index), then update again"))
        }
        // An index signed to last for decades would make the expiry no defence: it is refused. (A publisher's own
        // look at its index passes `.distantPast`, where only the signature counts.)
        guard now == .distantPast || index.expires.timeIntervalSince(now) <= Self.maximumLifetime else {
            return .failure(
                Problem(
                    .indexExpiryTooFar, subject: subject,
                    reason:
                        "it expires at \(Self.text(index.expires)), more than \(Int(Self.maximumLifetime / 86400)) days "
                        + "ahead: an index that never expires lets a server replay it forever",
                    fix: "ask the publisher to publish again with `--expires-in` of at most 365 days"))
        }
        let verified = VerifiedIndex(index: index, signer: signer)
        let highest = seen.index(ofAny: verified.recordNames(channel: channel))
        guard index.version >= highest else {
            return .failure(
                Problem(
                    .indexRollback, subject: subject,
                    reason:
                        "it is index version \(index.version), older than version \(highest) seen from this channel before: an old index replayed",
                    fix:
                        "do not use it; fetch it again from the publisher's own server, and tell the publisher if it persists"
                ))
        }
        return .success(verified)
    }

    /// Whether `entry`, a release of `feature` in a verified index, may replace `installed` (the version running,
    /// nil when none): the entry, or why not.
    public func checkRelease(_ entry: ChannelIndex.Entry, of feature: String, installed: Int?) -> Result<
        ChannelIndex.Entry, Problem
    > {
        let subject = "\(feature) \(entry.version)"
        guard let needed = SDKVersion(entry.sdk), sdk.accepts(needed) else {
            let why =
                SDKVersion(entry.sdk).map { $0.major != sdk.major ? "SDK major \($0.major)" : "a newer SDK minor" }
                ?? "an SDK version that cannot be read"
            return .failure(
                Problem(
                    .releaseSDK, subject: subject,
                    reason: "it was built for SDK \(entry.sdk) and this host speaks SDK \(sdk): \(why) is not loaded",
                    fix: sdkFix(SDKVersion(entry.sdk))))
        }
        if let installed, entry.version <= installed {
            return .failure(
                Problem(
                    .notAnUpdate, subject: subject,
                    reason: "version \(installed) is installed, and \(entry.version) is not newer",
                    fix: "nothing to do; a newer release arrives when the publisher publishes one"))
        }
        if let highest = seen.release(of: feature, fromAny: [channel] + recordNames), entry.version < highest {
            return .failure(
                Problem(
                    .releaseRollback, subject: subject,
                    reason:
                        "version \(highest) of \(feature) was accepted from this channel before: releases never go back",
                    fix:
                        "do not install it; if you want an older version on purpose, install it by hand from its release folder"
                ))
        }
        return .success(entry)
    }

    /// Checks a release's record (verified with `SignedRelease.verify`) against its entry in the index: the same
    /// feature, version, SDK and files.
    public func checkRecord(_ record: ReleaseRecord, against entry: ChannelIndex.Entry, of feature: String)
        -> Problem?
    {
        let library = entry.library.map { ($0.path as NSString).lastPathComponent }
        let manifest = entry.file(named: ReleaseLayout.manifest)
        guard record.feature == feature, record.version == entry.version, record.sdk == entry.sdk,
            library == record.library.path, entry.library?.sha256 == record.library.sha256,
            entry.library?.size == record.library.size, manifest?.sha256 == record.manifest.sha256,
            manifest?.size == record.manifest.size
        else {
            return Problem(
                .releaseMismatch, subject: "\(feature) \(entry.version)",
                reason:
                    "its signed record says \(record.feature) \(record.version) for SDK \(record.sdk) with \(record.library.path) \(record.library.sha256), not what the index lists",
                fix: "do not install it; tell the publisher to publish the release again")
        }
        return nil
    }

    private func sdkFix(_ needed: SDKVersion?) -> String {
        guard let needed else { return "ask the publisher for a release built against SDK \(sdk.major).x" }
        if needed.major != sdk.major {
            return
                "update the app to one with SDK \(needed.major).x, or ask the publisher for a release built against SDK \(sdk)"
        }
        return
            "update the app to one with SDK \(needed) or newer, or ask the publisher for a release built against SDK \(sdk)"
    }

    /// Whether `path` is a file directly in the folder of `entry`, a release of `feature`: nothing a signed index
    /// lists may reach outside the channel or into another release.
    static func isReleasePath(_ path: String, _ feature: String, _ entry: ChannelIndex.Entry) -> Bool {
        let folder = ChannelLayout.folder(feature: feature, version: entry.version) + "/"
        guard path.hasPrefix(folder) else { return false }
        return ReleaseLayout.isFileName(String(path.dropFirst(folder.count))) && ReleaseLayout.isFileName(feature)
    }

    private static func text(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
}
