import Foundation
import MicroappCore
import MicroappSDK

/// What earlier probes found, so a warm start loads known-good libraries without probing them again, and a
/// library that crashed a probe stays blocked until it changes. Keyed by SHA-256: the digest is the one of the bytes
/// read once into the library's private copy (`LibraryCopy`), which is also what was probed and what loads. Each
/// record also keeps what the library said about itself in the sandboxed probe (its manifest and SDK version), so a
/// start or an inspection learns it as data, running none of the library's code (GStreamer's registry, VS Code's
/// extension cache).
public struct ProbeCache: Sendable {
    /// What the file holds: each library's digest by path, and a record per digest.
    struct Stored: Codable, Sendable {
        // 3: manifests keep their tab, whose title `lock` checks.
        var version = 3
        var libraries: [String: String] = [:]
        var records: [String: ProbeRecord] = [:]
    }

    /// Where the cache lives.
    public let file: String
    private var stored: Stored
    /// Whether a verdict was recorded since the cache was read: an unchanged cache is not written again (a warm start
    /// would spend milliseconds encoding and replacing the file it just read).
    private var isChanged = false
    /// Why the cache on disk was not believed (it or its folder could be written by someone else), nil when it was.
    public let distrust: Problem?

    /// The cache at `file` (`defaultFile(in:)`); a missing or unreadable cache (or one of an earlier format) is an
    /// empty one, so the worst case is probing again. So is one that another user, or this user's group, could have
    /// written: an entry marking a crashing library usable must come from this user's own probe.
    public init(file: String) {
        self.file = file
        distrust =
            FileTrust.distrust(
                file, what: "the probe cache", ignoring: "every library is probed again",
                ownerFix: "delete \(file); microapp writes it again")?.warning
        let read =
            distrust != nil
            ? nil : try? JSONDecoder().decode(Stored.self, from: Data(contentsOf: URL(fileURLWithPath: file)))
        stored = read.flatMap { $0.version == 3 ? $0 : nil } ?? Stored()
    }

    /// `$XDG_CACHE_HOME/microapp/probe-cache.json`, or under `~/.cache` (under the temporary folder when there is no
    /// home: a cache written there by someone else is not believed, see `init(file:)`).
    public static func defaultFile(in environment: HostEnvironment) -> String {
        (environment.folder(.cache) ?? environment.temporaryFolder) + "/microapp/probe-cache.json"
    }

    /// The record of the library whose bytes hash to `sha256`, nil when no probe of those bytes is remembered.
    public func record(for sha256: String) -> ProbeRecord? { stored.records[sha256] }

    /// The cached verdict for the library at `path` as its bytes are now (read and hashed here).
    public func verdict(for path: String) -> PluginProbe.Verdict? {
        guard let digest = try? PluginLock.digest(of: path) else { return nil }
        return record(for: digest)?.verdict
    }

    /// Remembers a probe's verdict on the library at `path` whose probed bytes hash to `sha256`, with what it said
    /// about itself when it was usable. Refusals are not cached: they are cheap to redo.
    public mutating func record(
        _ verdict: PluginProbe.Verdict, for path: String, sha256: String, description: LibraryDescription? = nil
    ) {
        isChanged = true
        switch verdict {
        case .usable:
            stored.records[sha256] = ProbeRecord(usable: true, description: description)
            stored.libraries[path] = sha256
        case .blocked(let problem):
            stored.records[sha256] = ProbeRecord(usable: false, problem: problem)
            stored.libraries[path] = sha256
        case .refused:
            stored.records[sha256] = nil
        }
    }

    /// Writes the cache when a verdict was recorded (atomically; a failure only costs a probe next time). Records
    /// no library path points to any more (an earlier build's) are left out.
    public func save() {
        guard isChanged else { return }
        var kept = stored
        let current = Set(kept.libraries.values)
        kept.records = kept.records.filter { current.contains($0.key) }
        let folder = (file as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try? encoder.encode(kept).write(to: URL(fileURLWithPath: file), options: .atomic)
    }
}

/// What a sandboxed probe found in one library's bytes: its verdict and, for a usable one, what it says about itself.
public struct ProbeRecord: Codable, Sendable, Equatable {
    /// Whether the library loaded and registered in the probe.
    public var usable: Bool
    /// Why it is blocked (it crashed or hung a probe).
    public var problem: Problem?
    /// Its manifest and SDK version as the probe read them; nil in a record of an older probe (then the loader
    /// reads them from the library, as before).
    public var description: LibraryDescription?

    /// The verdict this record gives.
    public var verdict: PluginProbe.Verdict? {
        if usable { return .usable }
        return problem.map(PluginProbe.Verdict.blocked)
    }
}

/// What a library says about itself, read by the sandboxed probe from its descriptor: recorded, so later starts and
/// inspections learn it as data instead of running the library's entry and decoding its manifest again.
public struct LibraryDescription: Codable, Sendable, Equatable {
    /// The manifest, decoded and checked by the probe.
    public var manifest: FeatureManifest
    /// The SDK version the library was built against (its version symbol, which its descriptor repeats).
    public var sdkVersion: String

    /// A description of `manifest` built against `sdkVersion`.
    public init(manifest: FeatureManifest, sdkVersion: SDKVersion) {
        self.manifest = manifest
        self.sdkVersion = sdkVersion.description
    }

    /// The SDK version, nil when the text is not one (a damaged record).
    public var sdk: SDKVersion? { SDKVersion(sdkVersion) }
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
    public mutating func verdict(for library: LibraryCopy) -> PluginProbe.Verdict { screen(library).verdict }

    /// The cached verdict on `library`'s bytes and what the library said about itself in the probe, or a fresh
    /// probe's of its private copy (then remembered).
    public mutating func screen(
        _ library: LibraryCopy
    ) -> (verdict: PluginProbe.Verdict, description: LibraryDescription?) {
        if let known = cache.record(for: library.sha256), let verdict = known.verdict {
            return (verdict, known.description)
        }
        probed += 1
        let (verdict, description) = probe.examination(of: library)
        cache.record(verdict, for: library.original, sha256: library.sha256, description: description)
        return (verdict, description)
    }
}
