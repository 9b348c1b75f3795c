import Foundation

/// One version of a feature kept in a plugin folder (`.versions/<feature>/<version>/installed.json`, beside its
/// library): which feature and version, the library's file name, hash and size, and where it came from. Written by
/// the host when it installs or keeps a version; the signed `release.json` beside it, when it came from a channel,
/// says the same and is the proof.
public struct InstalledVersion: Codable, Sendable, Equatable {
    /// The feature's id.
    public var feature: String
    /// Its version.
    public var version: Int
    /// The library (its path is its file name in the plugin folder, `libCharacters.so`).
    public var library: FileEntry
    /// The channel it was installed from, or nil for a library that was in the plugin folder already.
    public var channel: String?
    /// When it was put in the folder.
    public var installed: Date

    /// A record of `library` as `feature` at `version`, from `channel` (nil: found in the folder) at `installed`.
    public init(feature: String, version: Int, library: FileEntry, channel: String?, installed: Date) {
        self.feature = feature
        self.version = version
        self.library = library
        self.channel = channel
        self.installed = installed
    }

    /// The record's file bytes (canonical JSON).
    public func encoded() -> Data { (try? CanonicalJSON.encode(self)) ?? Data() }
}

/// The versions of one feature a plugin folder will never install again (`.versions/<feature>/bad.json`): a version
/// the canary rolled back, or one a person left with `microapp rollback`. A later version is installed as usual.
public struct BadVersions: Codable, Sendable, Equatable {
    /// One mark.
    public struct Mark: Codable, Sendable, Equatable {
        /// Why it was marked.
        public var reason: String
        /// When.
        public var marked: Date
    }

    /// Version (as text: JSON keys are strings) → its mark.
    public var versions: [String: Mark]

    /// Marks of `versions`.
    public init(versions: [String: Mark] = [:]) { self.versions = versions }

    /// The mark on `version`; nil when it is not marked.
    public func mark(of version: Int) -> Mark? { versions[String(version)] }

    /// The marks with `version` marked for `reason` at `now`.
    public func marking(_ version: Int, reason: String, now: Date) -> BadVersions {
        var marks = self
        marks.versions[String(version)] = Mark(reason: reason, marked: now)
        return marks
    }

    /// The marks without `version`.
    public func clearing(_ version: Int) -> BadVersions {
        var marks = self
        marks.versions[String(version)] = nil
        return marks
    }

    /// The marks' file bytes (canonical JSON).
    public func encoded() -> Data { (try? CanonicalJSON.encode(self)) ?? Data() }
}
