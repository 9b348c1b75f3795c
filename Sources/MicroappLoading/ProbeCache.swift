import Foundation
import MicroappCore
import MicroappPlatform
import MicroappSDK

/// What earlier probes found, so a warm start loads known-good libraries without probing them again, and a
/// library that crashed a probe stays blocked until it changes. Keyed by SHA-256: the digest is the one of the bytes
/// read once into the library's private copy (`LibraryCopy`), which is also what was probed and what loads. Each
/// record also keeps what the library said about itself in the sandboxed probe (its manifest and SDK version), so a
/// start or an inspection learns it as data, running none of the library's code (GStreamer's registry, VS Code's
/// extension cache).
///
/// The file is in `CompactCoding`'s form after a first line naming it and the checksum of the rest
/// (`microapp probe cache 4 <FNV-1a>`): a warm start reads it without a JSON decoder, whose first use after a
/// `dlopen` cost more than the rest of the read, and by hand (`ProbeCache+Reading.swift`). A cache an earlier build
/// wrote (version 3, JSON) is read once that way and written again in the compact form.
public struct ProbeCache: Sendable {
    /// What the file holds: each library's digest by path, and a record per digest.
    struct Stored: Codable, Sendable, Equatable {
        // 3: manifests keep their tab, whose title `lock` checks (JSON). 4: the same in the compact form.
        var version = ProbeCache.version
        var libraries: [String: String] = [:]
        var records: [String: ProbeRecord] = [:]
        /// What isolated libraries' children registered at their handshake, by library path (absent before).
        var handshakes: [String: Handshake]?
    }

    /// What an isolated library's sandboxed child registered at its handshake, from the bytes hashing to `sha256`.
    struct Handshake: Codable, Sendable, Equatable {
        var sha256: String
        var description: LibraryDescription
    }

    /// `Stored` as the compact form holds it: each map a list of entries. Decoding a dictionary asks its container
    /// for all its keys, which the standard library casts to `[any CodingKey]`, looking the key type's conformance up:
    /// after a `dlopen`, a scan of every loaded image's conformances (0.32 M instructions, more than a record costs).
    struct Listed: Codable {
        struct Entry<Value: Codable>: Codable {
            var key: String
            var value: Value
        }
        var version: Int
        var libraries: [Entry<String>]
        var records: [Entry<ProbeRecord>]
        var handshakes: [Entry<Handshake>]?

        init(_ stored: Stored) {
            version = stored.version
            libraries = stored.libraries.map { Entry(key: $0.key, value: $0.value) }
            records = stored.records.map { Entry(key: $0.key, value: $0.value) }
            handshakes = stored.handshakes?.map { Entry(key: $0.key, value: $0.value) }
        }

        var stored: Stored {
            Stored(
                version: version, libraries: Dictionary(libraries.map { ($0.key, $0.value) }) { $1 },
                records: Dictionary(records.map { ($0.key, $0.value) }) { $1 },
                handshakes: handshakes.map { list in Dictionary(list.map { ($0.key, $0.value) }) { $1 } })
        }
    }

    /// The version of the file's form.
    static let version = 4
    /// How the file's first line starts; the checksum of what follows it comes next (16 hex digits), then a newline.
    static let header = Array("microapp probe cache \(version) ".utf8)

    /// Where the cache lives.
    public let file: String
    private var stored: Stored
    /// Whether the file was in an earlier form (version 3's JSON): `save()` writes it again in this one.
    private let isOld: Bool
    /// The entries this process set or removed since it read the file: `save()` writes them over what the file holds
    /// then, so what another process saved meanwhile stays.
    private var touched = Touched()
    /// Whether there is anything to write: an unchanged cache is not written again (a warm start would spend
    /// milliseconds encoding and replacing the file it just read).
    private var isChanged: Bool { isOld || !touched.isEmpty }
    /// Why the cache on disk was not believed (it or its folder could be written by someone else), nil when it was.
    public let distrust: Problem?

    /// The cache at `file` (`defaultFile(in:)`); a missing, damaged or cut-short cache (or one of a format before
    /// version 3) is an empty one, so the worst case is probing again; one of version 3 is read and written again in
    /// this version's form at `save()`. So is one that another user, or this user's group, could have written: an
    /// entry marking a crashing library usable must come from this user's own probe.
    public init(file: String) {
        self.file = file
        distrust =
            FileTrust.distrust(
                file, what: "the probe cache", ignoring: "every library is probed again",
                ownerFix: "delete \(file); microapp writes it again")?.warning
        let read = distrust != nil ? nil : Files.contents(file).flatMap(Self.stored(in:))
        stored = read?.stored ?? Stored()
        isOld = read?.isOld ?? false
    }

    /// What `bytes` hold: this version's form, or version 3's JSON (`isOld`); nil for anything else.
    private static func stored(in bytes: Data) -> (stored: Stored, isOld: Bool)? {
        if bytes.starts(with: header) {
            let stored = unframed(Array(bytes)).flatMap { body in
                handRead(body) ?? (try? CompactCoding.decode(Listed.self, from: body).stored)
            }
            return stored.flatMap { $0.version == version ? ($0, false) : nil }
        }
        guard var old = try? JSONDecoder().decode(Stored.self, from: bytes), old.version == 3 else { return nil }
        old.version = version
        return (old, true)
    }

    /// `body` after the first line that names the form and checksums `body`.
    static func framed(_ body: [UInt8]) -> [UInt8] { header + Array(checksum(body).utf8) + [UInt8(ascii: "\n")] + body }

    /// What follows the first line of `bytes` when its checksum matches; nil when it does not (a byte changed, the
    /// file cut short), which makes the cache an empty one.
    static func unframed(_ bytes: [UInt8]) -> [UInt8]? {
        let end = header.count + 16
        guard bytes.count > end, bytes[end] == UInt8(ascii: "\n") else { return nil }
        let body = Array(bytes[(end + 1)...])
        return bytes[header.count..<end].elementsEqual(checksum(body).utf8) ? body : nil
    }

    /// FNV-1a (64 bits) of `bytes` in 16 hex digits: damage changes it. Not a defence against a writer (the file's
    /// owner is checked for that, `FileTrust`).
    private static func checksum(_ bytes: [UInt8]) -> String {
        let hash = bytes.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
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
        touched.records.insert(sha256)
        if case .refused = verdict {} else { touched.libraries.insert(path) }
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

    /// What a sandboxed child said about the library at `path` whose bytes hash to `sha256`: a usable probe record's
    /// description, else what its isolated child registered at a handshake; nil when no child read these bytes.
    public func description(of path: String, sha256: String) -> LibraryDescription? {
        if let record = record(for: sha256), record.usable, let description = record.description { return description }
        guard let known = stored.handshakes?[path], known.sha256 == sha256 else { return nil }
        return known.description
    }

    /// Remembers what the isolated child of the library at `path`, its bytes hashing to `sha256`, registered at its
    /// handshake: a later start learns its manifest without starting it (`description(of:sha256:)`).
    public mutating func recordHandshake(_ description: LibraryDescription, for path: String, sha256: String) {
        touched.handshakes.insert(path)
        var handshakes = stored.handshakes ?? [:]
        handshakes[path] = Handshake(sha256: sha256, description: description)
        stored.handshakes = handshakes
    }

    /// Writes the cache when a verdict was recorded (atomically; a failure only costs a probe next time): what this
    /// process recorded goes over what the file holds now, read again under a file lock beside it, so two hosts
    /// starting at once each keep the other's records. Records no library path points to any more (an earlier
    /// build's) are left out.
    public func save() {
        guard isChanged else { return }
        let folder = (file as NSString).deletingLastPathComponent
        try? Files.makeDirectory(folder)
        let write = {
            // A file this process did not believe is not merged with: it is replaced by what this process knows.
            let now = distrust == nil ? Files.contents(file).flatMap(Self.stored(in:))?.stored : nil
            var kept = touched.merged(stored, over: now ?? Stored())
            let current = Set(kept.libraries.values)
            kept.records = kept.records.filter { current.contains($0.key) }
            kept.handshakes = kept.handshakes?.filter { Files.exists($0.key) }
            guard let bytes = try? CompactCoding.encode(Listed(kept)) else { return }
            try? Files.replace(file, with: Data(Self.framed(bytes)))
        }
        FileLock.editing(beside: file, write)
    }

    /// Forgets every library whose path `matches` and its record, as if it had never been probed (a benchmark's
    /// "after a rebuild" start); returns the digests forgotten. `save()` writes it.
    public mutating func forgetLibraries(where matches: (String) -> Bool) -> [String] {
        let forgotten = stored.libraries.filter { matches($0.key) }
        for (path, digest) in forgotten {
            stored.libraries[path] = nil
            stored.records[digest] = nil
            touched.libraries.insert(path)
            touched.records.insert(digest)
        }
        return Array(forgotten.values)
    }
}

extension ProbeCache {
    /// The keys of the entries one process set or removed, by map.
    struct Touched: Sendable {
        var libraries: Set<String> = []
        var records: Set<String> = []
        var handshakes: Set<String> = []

        /// Whether no entry was set or removed.
        var isEmpty: Bool { libraries.isEmpty && records.isEmpty && handshakes.isEmpty }

        /// `base` with each touched entry as `mine` has it (removed where `mine` has none).
        func merged(_ mine: Stored, over base: Stored) -> Stored {
            var merged = base
            for path in libraries { merged.libraries[path] = mine.libraries[path] }
            for digest in records { merged.records[digest] = mine.records[digest] }
            if !handshakes.isEmpty {
                var kept = merged.handshakes ?? [:]
                for path in handshakes { kept[path] = mine.handshakes?[path] }
                merged.handshakes = kept
            }
            return merged
        }
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

    /// A description of `manifest` with the SDK version as a record holds it.
    init(manifest: FeatureManifest, recordedSDK sdkVersion: String) {
        self.manifest = manifest
        self.sdkVersion = sdkVersion
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
