import Foundation

/// A channel's index: every feature's releases with their files' hashes and sizes, a version that only goes up, and
/// an expiry, signed by the publisher (`index.json` and `index.json.sig` at the channel's top).
///
/// A channel is static files, served by any web server or read from a folder:
/// ```
/// index.json  index.json.sig
/// releases/<feature>/<version>/lib<Feature>.so  manifest.json  release.json  release.json.sig
/// ```
public struct ChannelIndex: Codable, Sendable, Equatable {
    /// What kind of document this is, so that a release record is never taken for an index.
    public var type = "microapp-channel-index"
    /// Goes up by one each time the publisher signs a new index; a lower one than seen before is a replay.
    public var version: Int
    /// After this the index is refused: a channel that stops being signed cannot freeze its readers on old releases.
    public var expires: Date
    /// Feature id → its releases, oldest first.
    public var features: [String: [Entry]]
    /// The channel's id as its publisher names it (its folder's name when first published); with the signer's key,
    /// what a host keys its record of versions seen by, so every URL and mirror of the channel shares one record. Nil
    /// in an index published before it existed.
    public var channel: String?

    /// One release as the index lists it.
    public struct Entry: Codable, Sendable, Equatable {
        /// The feature's version.
        public var version: Int
        /// The SDK version it was built against, `major.minor`.
        public var sdk: String
        /// The release's files (library, manifest, record, signature), paths relative to the channel's top.
        public var files: [FileEntry]

        /// An entry of the given files.
        public init(version: Int, sdk: String, files: [FileEntry]) {
            self.version = version
            self.sdk = sdk
            self.files = files
        }

        /// The release's library file (the file that is neither manifest, record nor signature).
        public var library: FileEntry? {
            let others: Set = [ReleaseLayout.manifest, ReleaseLayout.record, ReleaseLayout.signature]
            return files.first { !others.contains(($0.path as NSString).lastPathComponent) }
        }

        /// The entry for the file named `name` in the release's folder.
        public func file(named name: String) -> FileEntry? {
            files.first { ($0.path as NSString).lastPathComponent == name }
        }
    }

    /// An index of `features` at `version`, expiring at `expires`.
    public init(version: Int, expires: Date, features: [String: [Entry]] = [:], channel: String? = nil) {
        self.version = version
        self.expires = expires
        self.features = features
        self.channel = channel
    }

    /// The newest release of `feature`; nil when the index has none.
    public func latest(_ feature: String) -> Entry? { features[feature]?.max { $0.version < $1.version } }
}

/// Where a channel's files are, relative to its top.
public enum ChannelLayout {
    /// The index.
    public static let index = "index.json"
    /// The index's signature.
    public static let signature = "index.json.sig"
    /// The publisher's key rotations (`RotationFile`), when it rotated its key.
    public static let rotations = "rotations.json"

    /// The folder of one release: `releases/<feature>/<version>`.
    public static func folder(feature: String, version: Int) -> String { "releases/\(feature)/\(version)" }
}
