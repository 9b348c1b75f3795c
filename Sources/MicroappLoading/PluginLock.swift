import Foundation
import MicroappCore
import MicroappDigest
import MicroappPlatform

/// `plugins.lock`: the SHA-256 of each plugin library in a folder, written by `microapp lock`. When a folder has
/// one, a library that is not in it or does not match is refused before it is opened.
public struct PluginLock: Codable, Sendable, Equatable {
    /// One locked library.
    public struct Entry: Codable, Sendable, Equatable {
        /// The feature id the library had when it was locked (for people; the file name is the key).
        public var feature: String
        /// Hex SHA-256 of the file.
        public var sha256: String
        /// Where the library runs under `--isolation auto` (`"process"` or `"none"`); absent: as its folder decides.
        public var isolation: Isolation?
        /// Keys granted to the library's feature beyond the host's grant rules (`"grants": ["search.recent"]`);
        /// absent: none. Counted only while the lock is trusted.
        public var grants: [String]?
        /// The SHA-256 of the version an update is putting in place of this one, accepted as well as `sha256` only
        /// between the update's two writes of the lock (around the library's rename): whichever file a reader finds,
        /// and wherever an update stopped, the lock pins it. Absent otherwise.
        public var installing: String?

        /// An entry of these fields (an update's pin writes one from its module).
        package init(
            feature: String, sha256: String, isolation: Isolation? = nil, grants: [String]? = nil,
            installing: String? = nil
        ) {
            self.feature = feature
            self.sha256 = sha256
            self.isolation = isolation
            self.grants = grants
            self.installing = installing
        }
    }

    /// The file name of the lock in a plugin folder.
    public static let fileName = "plugins.lock"

    /// The update lock of the plugin folder `plugins`: an update (`PluginVersions`) holds it while it switches a
    /// library and pins it; a loader holds it shared while it reads the libraries and their lock.
    public static func updateLock(_ plugins: String) -> String { plugins + "/.versions/update.lock" }

    /// Format version of the lock.
    public var version = 1
    /// Locked libraries by file name (`libAuth.so`).
    public var libraries: [String: Entry]

    /// A lock of `images` (the bytes each mapped: `PluginImage.file`), each with `isolation`, else the setting its
    /// entry has in `previous` (the lock being replaced).
    public init(images: [PluginImage], isolation: Isolation? = nil, keeping previous: PluginLock? = nil) throws {
        self.init(
            libraries: try images.map {
                (path: $0.path, feature: $0.manifest.id, sha256: try Self.digest(of: $0.file))
            },
            isolation: isolation, keeping: previous)
    }

    /// A lock of `libraries` (each library's path, its feature id and the SHA-256 of the bytes that were examined),
    /// each with `isolation`, else the setting its entry has in `previous` (the lock being replaced).
    public init(
        libraries locked: [(path: String, feature: String, sha256: String)], isolation: Isolation? = nil,
        keeping previous: PluginLock? = nil
    ) {
        libraries = [:]
        for library in locked {
            let name = (library.path as NSString).lastPathComponent
            libraries[name] = Entry(
                feature: library.feature, sha256: library.sha256,
                isolation: isolation ?? previous?.libraries[name]?.isolation,
                grants: previous?.libraries[name]?.grants)
        }
    }

    /// Why the lock in `folder` is not believed (it or the folder could be written by someone else), nil when it is
    /// or there is none: such a lock is ignored, and its libraries count as not pinned.
    public static func distrust(in folder: String) -> (weakness: String, warning: Problem)? {
        FileTrust.distrust(
            (folder as NSString).appendingPathComponent(fileName), what: fileName,
            ignoring: "its libraries are not checked against it, and run isolated under --isolation auto",
            ownerFix: "remove it and lock the folder again as yourself: `microapp lock \(folder)`")
    }

    /// Why the private copy of the library at `path` (a new build, a feature's child), whose bytes hash to
    /// `sha256`, may not run: its folder has a trusted lock that does not pin those bytes (or a lock that cannot be
    /// read); nil when nothing stands in the way. An ignored lock pins nothing, as at start-up, where it was reported.
    public static func swapProblem(for path: String, sha256: String) -> Problem? {
        let folder = (path as NSString).deletingLastPathComponent
        guard distrust(in: folder) == nil else { return nil }
        do {
            return try load(in: folder)?.problem(with: path, sha256: sha256)
        } catch {
            return error
        }
    }

    /// What this lock says about the library at `path` once it matched: pinned, with its entry's isolation.
    public func pin(of path: String) -> LibraryTrust.Lock {
        .pinned(setting: libraries[PathParts.name(of: path)]?.isolation)
    }

    /// The keys this lock's entry for the library at `path` grants its feature (none without an entry or grants).
    public func grants(of path: String) -> [String] {
        libraries[PathParts.name(of: path)]?.grants ?? []
    }

    /// The lock in `folder`, nil when there is none; throws when it exists but cannot be read.
    public static func load(in folder: String) throws(Problem) -> PluginLock? {
        let path = (folder as NSString).appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let bytes: Data
        do {
            bytes = try Data(contentsOf: URL(fileURLWithPath: path, isDirectory: false))
        } catch {
            throw Problem(
                .lockMismatch, subject: path, reason: "it cannot be read (\(error.localizedDescription))",
                fix: "write it again with `microapp lock \(folder)`")
        }
        do {
            return try PluginLock(json: [UInt8](bytes))
        } catch {
            throw Problem(
                .lockMismatch, subject: path, reason: "it cannot be read (\(error.reason))",
                fix: "write it again with `microapp lock \(folder)`, or mend it by hand")
        }
    }

    /// Why bytes are not a lock: not JSON (where), or a field missing or of another kind (which).
    package struct FormatError: Error, Sendable {
        /// What is wrong, naming the line and column or the field.
        package let reason: String
    }

    /// The lock `bytes` hold as `write(in:)` writes them (JSON: people read and mend it), read by hand
    /// (`JSONValue(parsing:)`, no JSONDecoder and its dynamic casts on a warm start's path) with `Codable`'s rules: the
    /// fields `version`, `libraries` and each entry's `feature` and `sha256` required, the others absent or null for
    /// none, fields it does not know ignored.
    package init(json bytes: [UInt8]) throws(FormatError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes)
        } catch {
            throw FormatError(reason: "not JSON: \(error)")
        }
        guard case .object(let fields) = value else { throw FormatError(reason: "not a JSON object") }
        guard case .integer(let number) = fields["version"], let version = Int(exactly: number) else {
            throw FormatError(reason: Self.wrong("version", fields["version"], "a whole number"))
        }
        guard case .object(let entries) = fields["libraries"] else {
            throw FormatError(reason: Self.wrong("libraries", fields["libraries"], "an object"))
        }
        self.version = version
        libraries = [:]
        for (name, entry) in entries {
            libraries[name] = try Entry(json: entry, at: "libraries.\"\(name)\"")
        }
    }

    /// "`field` is missing" or "`field` is not `kind`".
    fileprivate static func wrong(_ field: String, _ value: JSONValue?, _ kind: String) -> String {
        value == nil ? "\(field) is missing" : "\(field) is not \(kind)"
    }

    /// Writes the lock into `folder` (sorted, one library per line, so diffs read well).
    public func write(in folder: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(
            to: URL(fileURLWithPath: (folder as NSString).appendingPathComponent(Self.fileName)), options: .atomic)
    }

    /// Why the library at `path`, whose bytes (as read once, into its private copy) hash to `actual`, may not be
    /// loaded under this lock, or nil if it matches.
    public func problem(with path: String, sha256 actual: String) -> Problem? {
        let name = PathParts.name(of: path)
        let folder = PathParts.folder(of: path)
        guard let entry = libraries[name] else {
            return Problem(
                .lockMismatch, subject: path, reason: "it is not in \(Self.fileName)",
                fix: "if you trust it, run `microapp lock \(folder)` to add it; otherwise remove it")
        }
        guard actual == entry.sha256 || actual == entry.installing else {
            return Problem(
                .lockMismatch, subject: path,
                reason:
                    "its SHA-256 \(actual.prefix(12))… differs from \(entry.sha256.prefix(12))… in \(Self.fileName)",
                fix:
                    "if you rebuilt \(entry.feature) on purpose, run `microapp lock \(folder)`; otherwise restore the file"
            )
        }
        return nil
    }

    /// Hex SHA-256 of a file.
    public static func digest(of path: String) throws -> String {
        SHA256.hex(of: try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

extension PluginLock.Entry {
    /// The entry `value` holds, at `path` in the lock (for errors), by `Codable`'s rules.
    fileprivate init(json value: JSONValue, at path: String) throws(PluginLock.FormatError) {
        guard case .object(let fields) = value else { throw .init(reason: "\(path) is not an object") }
        func text(_ field: String, required: Bool) throws(PluginLock.FormatError) -> String? {
            switch fields[field] {
            case .string(let text): return text
            case nil where !required, .null where !required: return nil
            case let other: throw .init(reason: PluginLock.wrong("\(path).\(field)", other, "a string"))
            }
        }
        feature = try text("feature", required: true) ?? ""
        sha256 = try text("sha256", required: true) ?? ""
        installing = try text("installing", required: false)
        isolation = nil
        if let setting = try text("isolation", required: false) {
            guard let known = Isolation(rawValue: setting) else {
                throw .init(reason: "\(path).isolation is \"\(setting)\", neither \"process\" nor \"none\"")
            }
            isolation = known
        }
        switch fields["grants"] {
        case nil, .null: grants = nil
        case .array(let items):
            grants = try items.map { (item) throws(PluginLock.FormatError) -> String in
                guard case .string(let key) = item else { throw .init(reason: "\(path).grants holds a non-string") }
                return key
            }
        default: throw .init(reason: "\(path).grants is not a list of strings")
        }
    }
}
