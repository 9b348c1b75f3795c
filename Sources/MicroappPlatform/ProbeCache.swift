import Foundation
import MicroappCore

/// What earlier probes found, so a warm start loads known-good libraries without probing them again, and a
/// library that crashed a probe stays blocked until it changes. Keyed by path and SHA-256: the digest is the one of
/// the bytes read once into the library's private copy (`LibraryCopy`), which is also what was probed and what loads.
public struct ProbeCache: Sendable {
    /// One probed file's digest, and its verdict.
    struct Entry: Codable, Sendable, Equatable {
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

    /// The cache at `file` (`defaultFile(in:)`); a missing or unreadable cache
    /// is an empty one, so the worst case is probing again. So is one that another user, or this user's group,
    /// could have written: an entry marking a crashing library usable must come from this user's own probe.
    public init(file: String) {
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

    /// `$XDG_CACHE_HOME/microapp/probe-cache.json`, or under `~/.cache` (under the temporary folder when there is no
    /// home: a cache written there by someone else is not believed, see `init(file:)`).
    public static func defaultFile(in environment: HostEnvironment) -> String {
        (environment.folder(.cache) ?? environment.temporaryFolder) + "/microapp/probe-cache.json"
    }

    /// The cached verdict for the library at `path` whose bytes hash to `sha256`, or nil when it is new or changed
    /// (probe it).
    public func verdict(for path: String, sha256: String) -> PluginProbe.Verdict? {
        guard let entry = entries[path], entry.sha256 == sha256 else { return nil }
        if entry.usable { return .usable }
        return entry.problem.map(PluginProbe.Verdict.blocked)
    }

    /// The cached verdict for the library at `path` as its bytes are now (read and hashed here).
    public func verdict(for path: String) -> PluginProbe.Verdict? {
        guard entries[path] != nil, let digest = try? PluginLock.digest(of: path) else { return nil }
        return verdict(for: path, sha256: digest)
    }

    /// Remembers a probe's verdict on the library at `path` whose probed bytes hash to `sha256`. Refusals are not
    /// cached: they are cheap to redo.
    public mutating func record(_ verdict: PluginProbe.Verdict, for path: String, sha256: String) {
        isChanged = true
        switch verdict {
        case .usable: entries[path] = Entry(sha256: sha256, usable: true)
        case .blocked(let problem): entries[path] = Entry(sha256: sha256, usable: false, problem: problem)
        case .refused: entries[path] = nil
        }
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
    public init(probe: PluginProbe, cache: ProbeCache) {
        self.probe = probe
        self.cache = cache
    }

    /// Screens with the host's own probe and its cache in `environment` (`ProbeCache.defaultFile(in:)`).
    public init(environment: HostEnvironment, allowingUnsandboxed: Bool = false) {
        self.init(
            probe: PluginProbe(environment: environment, allowingUnsandboxed: allowingUnsandboxed),
            cache: ProbeCache(file: ProbeCache.defaultFile(in: environment)))
    }

    /// `verdict(for:)` of the library at `path`, read once into a private copy first; one that cannot be read or
    /// copied is refused.
    public mutating func verdict(for path: String) -> PluginProbe.Verdict {
        switch LibraryCopy.make(path) {
        case .success(let copy): verdict(for: copy)
        case .failure(let problem): .refused(problem)
        }
    }

    /// The cached verdict on `library`'s bytes, or a fresh probe's of its private copy (then remembered).
    public mutating func verdict(for library: LibraryCopy) -> PluginProbe.Verdict {
        if let known = cache.verdict(for: library.original, sha256: library.sha256) { return known }
        probed += 1
        let verdict = probe.verdict(for: library)
        cache.record(verdict, for: library.original, sha256: library.sha256)
        return verdict
    }
}
