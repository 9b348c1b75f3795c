import Foundation
import MicroappCore
import MicroappDigest

#if canImport(Glibc)
    import Glibc
#endif

/// What earlier probes found, so a warm start loads known-good libraries without probing them again, and a
/// library that crashed a probe stays blocked until it changes. Keyed by path, size, mtime, inode and SHA-256.
///
/// The SHA-256 is computed when a verdict is recorded, and again on a lookup unless the file's status-change time
/// (ctime) is still the one seen then: the kernel sets ctime on every write, truncation, rename or chmod and no
/// unprivileged process can set it back, so an unchanged ctime proves the bytes are those hashed. That keeps hashing
/// off the warm start.
public struct ProbeCache: Sendable {
    /// One probed file as it was, and its verdict.
    struct Entry: Codable, Sendable, Equatable {
        var size: Int64
        var modified: Int64
        var inode: UInt64
        /// ctime in nanoseconds when `sha256` was computed (absent in caches written before it was kept).
        var statusChanged: Int64?
        var sha256: String
        var usable: Bool
        var problem: Diagnostic?
    }

    /// Where the cache lives.
    public let file: String
    private var entries: [String: Entry]
    /// Whether a verdict was recorded since the cache was read: an unchanged cache is not written again (a warm start
    /// would spend milliseconds encoding and replacing the file it just read).
    private var isChanged = false
    /// Why the cache on disk was not believed (it or its folder could be written by someone else), nil when it was.
    public let distrust: Diagnostic?

    /// The cache at `file` (`$XDG_CACHE_HOME/microapp/probe-cache.json` by default); a missing or unreadable cache
    /// is an empty one, so the worst case is probing again. So is one that another user, or this user's group,
    /// could have written: an entry marking a crashing library usable must come from this user's own probe.
    public init(file: String = ProbeCache.defaultFile) {
        self.file = file
        distrust =
            FileTrust.distrust(
                file, what: "the probe cache", ignoring: "every library is probed again",
                ownerFix: "delete \(file); microapp writes it again")?.warning
        entries =
            distrust != nil
            ? [:]
            : (try? JSONDecoder().decode([String: Entry].self, from: Data(contentsOf: URL(fileURLWithPath: file))))
                ?? [:]
    }

    /// `$XDG_CACHE_HOME/microapp/probe-cache.json`, or under `~/.cache`.
    public static var defaultFile: String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.cache")
        return base + "/microapp/probe-cache.json"
    }

    /// The cached verdict for the file as it is now, or nil when it is new or changed (probe it).
    public func verdict(for path: String) -> PluginProbe.Verdict? {
        guard let entry = entries[path], let current = Self.identity(of: path),
            current.size == entry.size, current.modified == entry.modified, current.inode == entry.inode,
            entry.statusChanged != nil && current.statusChanged == entry.statusChanged
                || (try? PluginLock.digest(of: path)) == entry.sha256
        else { return nil }
        if entry.usable { return .usable }
        return entry.problem.map(PluginProbe.Verdict.blocked)
    }

    /// The file's identity now (size, mtime, inode, ctime; no digest): take it before probing, for `record`.
    public static func status(of path: String) -> Status? { identity(of: path).map(Status.init) }

    /// A file's size, times and inode at one moment.
    public struct Status: Sendable, Equatable {
        fileprivate let entry: Entry
    }

    /// Remembers a probe's verdict for the file, when it is still as it was `before` the probe (else the verdict may
    /// be about other bytes, and nothing is remembered). Refusals are not cached: they are cheap to redo.
    public mutating func record(_ verdict: PluginProbe.Verdict, for path: String, before: Status?) {
        guard let before, let digest = try? PluginLock.digest(of: path), Self.status(of: path) == before else {
            return
        }
        isChanged = true
        var entry = before.entry
        entry.sha256 = digest
        switch verdict {
        case .usable: entry.usable = true
        case .blocked(let problem):
            entry.usable = false
            entry.problem = problem
        case .refused:
            entries[path] = nil
            return
        }
        entries[path] = entry
    }

    /// Writes the cache when a verdict was recorded (atomically; a failure only costs a probe next time).
    public func save() {
        guard isChanged else { return }
        let folder = (file as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try? encoder.encode(entries).write(to: URL(fileURLWithPath: file), options: .atomic)
    }

    private static func identity(of path: String) -> Entry? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        let statusChanged = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        return Entry(
            size: Int64(info.st_size), modified: modified, inode: UInt64(info.st_ino), statusChanged: statusChanged,
            sha256: "", usable: false, problem: nil)
    }
}

/// A probe behind a cache: what `run` uses to screen libraries before loading them in the host process.
public struct PluginScreening: Sendable {
    /// The child-process probe for new or changed libraries.
    public var probe: PluginProbe
    /// Verdicts of earlier runs.
    public var cache: ProbeCache
    /// How many libraries were probed (not answered by the cache) so far.
    public private(set) var probed = 0

    /// Screens with `probe`, remembering verdicts in `cache`.
    public init(probe: PluginProbe = PluginProbe(), cache: ProbeCache = ProbeCache()) {
        self.probe = probe
        self.cache = cache
    }

    /// The cached verdict, or a fresh probe's (then remembered).
    public mutating func verdict(for path: String) -> PluginProbe.Verdict {
        if let known = cache.verdict(for: path) { return known }
        probed += 1
        let before = ProbeCache.status(of: path)
        let verdict = probe.verdict(for: path)
        cache.record(verdict, for: path, before: before)
        return verdict
    }
}
