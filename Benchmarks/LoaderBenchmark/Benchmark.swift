import BenchmarkSupport
import CMicroappABI
import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import MicroappSDK

#if canImport(Glibc)
    import Glibc
#endif

/// Resident memory of this process in bytes (from /proc/self/statm).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

/// Timings of one round for one N, in seconds for the whole batch.
struct RoundTiming {
    /// (a) reading the probe cache, `PluginSet.load` screened (lock check, cached verdict with the recorded manifest,
    /// each copy from the library store unread), then `PluginLoader.register` of each, then `PluginSet.resolve`.
    var host: Double
    /// (a0) the same with the path before records and the store: every copy read, hashed and copied, its symbols
    /// read and its manifest decoded (a verdict cached without a description, no store).
    var baseline: Double
    /// The probe-cache read and screened `PluginSet.load` part of (a).
    var load: Double
    /// The register part of (a).
    var register: Double
    /// The resolve part of (a).
    var resolve: Double
    /// (b) bare `dlopen(RTLD_NOW | RTLD_LOCAL)` + `dlsym("microapp_entry")`.
    var bare: Double
}

/// Per-plugin seconds of the loader's steps, replayed one by one outside `PluginLoader`: a warm start's on copies the
/// store and the probe cache know, then what a first start does instead on fresh ones.
struct StepTiming {
    /// `ProbeCache(file:)`, the cache of all the copies read and decoded, divided by their number.
    var cacheRecord = 0.0
    /// `LibraryCopy.make(_:store:)` of a copy the store knows: open, fstat, the identity link and its copy, no read.
    var storeLookup = 0.0
    /// The record looked up by the digest the store answered, and the lock's entry compared with it.
    var recordAndLock = 0.0
    /// `dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)`.
    var open = 0.0
    /// `dlsym` and the call of `microapp_entry` asking for no manifest (`MicroappEntry.withRecordedManifests`).
    var entryRecorded = 0.0
    /// A first start's instead: `dlsym` and the entry building and encoding its manifest, on fresh copies.
    var entryBuilding = 0.0
    /// A first start's too: `ManifestCoding.decode` of that manifest once all images are loaded.
    var decode = 0.0
}

/// Loads fresh copies both ways, interleaved, and checks the host path did its whole job each time.
@MainActor
struct LoaderBenchmark {
    var factory: PluginFactory
    /// Where the factory writes; each batch of copies gets a folder of its own with a `plugins.lock`.
    let folder: String
    let clock = ContinuousClock()
    /// What the composition root offers: the session and the host services every copy requires.
    let container: Container
    private var batches = 0
    /// The store warm starts read copies from (in the benchmark's folder).
    let store: LibraryStore
    /// The template's manifest as JSON: a copy's is this with its id in place of the placeholder.
    let manifestTemplate: String
    /// The process's environment, read once as a composition root does (the probe behind the cache takes it).
    let environment = HostEnvironment.process
    /// Whether rounds measure only (a), the host's path (for a run under callgrind).
    let hostOnly: Bool

    init(factory: PluginFactory, folder: String, hostOnly: Bool = false) throws {
        self.factory = factory
        self.folder = folder
        self.hostOnly = hostOnly
        guard let store = LibraryStore(folder: folder + "/store") else {
            throw BenchmarkError("the library store in \(folder) could not be made")
        }
        self.store = store
        let sample = try self.factory.copies(1, in: "template")[0]
        manifestTemplate = try ManifestCoding.encode(try PluginLoader.load(sample.path).get().manifest)
            .replacingOccurrences(of: sample.id, with: PluginFactory.placeholder)
        container = Container()
        container.share(DependencyKey<Session?>.session(access: .readWrite), ObservableProperty<Session?>(nil))
        for name in PluginFactory.hostServices {
            container.provide(DependencyKey<Service<Nothing, Nothing>>.service(name), Service { _ in Nothing() })
        }
    }

    /// `count` fresh copies in a new folder of their own, locked (`plugins.lock` with every copy's SHA-256) and
    /// known to a probe cache (each recorded usable, as after a first start; `described`: with the manifest and SDK
    /// version the probe records), so loading them goes the way a warm `microapp run` does. Returns the copies and the
    /// probe cache's file.
    mutating func screenedCopies(
        _ count: Int, described: Bool
    ) throws -> (copies: [(path: String, id: String)], cache: String) {
        batches += 1
        let name = "batch-\(batches)"
        let copies = try factory.copies(count, in: name)
        var cache = ProbeCache(file: folder + "/\(name)-probe-cache.json")
        var libraries: [String: Any] = [:]
        for copy in copies {
            let digest = try PluginLock.digest(of: copy.path)
            let description = try LibraryDescription(
                manifest: ManifestCoding.decode(
                    manifestTemplate.replacingOccurrences(of: PluginFactory.placeholder, with: copy.id)),
                sdkVersion: .current)
            cache.record(.usable, for: copy.path, sha256: digest, description: described ? description : nil)
            libraries[(copy.path as NSString).lastPathComponent] = ["feature": copy.id, "sha256": digest]
        }
        cache.save()
        let lock = try JSONSerialization.data(withJSONObject: ["version": 1, "libraries": libraries])
        try lock.write(to: URL(fileURLWithPath: folder + "/\(name)/" + PluginLock.fileName))
        return (copies, cache.file)
    }

    /// (a): the host's full path for `copies` — probe-cache read, screened load (lock, cached verdict, open,
    /// describe), register, resolve; fails if any copy is refused, probed, unregistered or unresolved.
    /// With a `store`, each copy is read from it (unread and unhashed when the store knows it).
    mutating func measureHost(
        _ copies: [(path: String, id: String)], cache: String, store: LibraryStore?
    ) throws -> (Double, Double, Double) {
        var report: PluginSet.LoadReport?
        var probed = 0
        let load = clock.measure {
            var screening = PluginScreening(
                probe: PluginProbe(environment: environment), cache: ProbeCache(file: cache))
            let check = PluginSet.checkLocks(copies.map(\.path), store: store)
            report = PluginSet.load(check, screening: &screening)
            probed = screening.probed
        }
        guard let report, report.problems.isEmpty, report.images.count == copies.count, probed == 0 else {
            throw BenchmarkError(
                "PluginSet.load refused or probed copies (\(probed) probed): \(report?.problems.map(\.description) ?? [])"
            )
        }
        var registered: [any Feature.Type] = []
        let register = try clock.measure {
            for image in report.images { registered.append(try PluginLoader.register(image).get()) }
        }
        var resolution: Resolution?
        let resolve = clock.measure {
            resolution = PluginSet.resolve(report.images, container: container, trust: { _ in .own })
        }
        guard let resolution, resolution.problems.isEmpty, resolution.startOrder == copies.map(\.id) else {
            throw BenchmarkError("the copies did not resolve as distinct features: \(resolution?.problems ?? [])")
        }
        guard report.images.map(\.manifest.id) == copies.map(\.id),
            report.images.allSatisfy({ $0.manifest.routes.first?.pattern == "\($0.manifest.id)://home" }),
            Set(registered.map(ObjectIdentifier.init)).count == copies.count
        else {
            throw BenchmarkError("the patched copies do not describe distinct features with their own routes and types")
        }
        return (seconds(load), seconds(register), seconds(resolve))
    }

    /// (b): bare `dlopen` + `dlsym` of `copies`; fails if any does not open or lacks the entry.
    func measureBare(_ copies: [(path: String, id: String)]) throws -> Double {
        var failures: [String] = []
        let bare = clock.measure {
            for copy in copies {
                guard let handle = dlopen(copy.path, RTLD_NOW | RTLD_LOCAL), dlsym(handle, "microapp_entry") != nil
                else {
                    failures.append(copy.path)
                    continue
                }
            }
        }
        guard failures.isEmpty else { throw BenchmarkError("bare dlopen failed for \(failures)") }
        return seconds(bare)
    }

    /// Fresh copies for a warm round of `count` plugins: described in their probe cache and, once they are a second
    /// old (`warm(_:)`), known to the store, as after a first start.
    mutating func warmBatch(_ count: Int) throws -> (copies: [(path: String, id: String)], cache: String) {
        try screenedCopies(count, described: true)
    }

    /// The first start's half of a warm batch: each copy read, hashed and copied into the store (which remembers it,
    /// being a second old).
    func warm(_ batch: (copies: [(path: String, id: String)], cache: String)) throws {
        for copy in batch.copies { _ = try LibraryCopy.make(copy.path, store: store).get() }
    }

    /// One round for `count` plugins: fresh copies for each side (`warm`, made and warmed beforehand, for the host),
    /// the order of the three sides rotating by round.
    mutating func round(
        _ count: Int, warm: (copies: [(path: String, id: String)], cache: String), order: Int
    ) throws -> RoundTiming {
        let baselineCopies = try screenedCopies(count, described: false)
        let bareCopies = try factory.copies(count)
        var parts = (0.0, 0.0, 0.0)
        var before = (0.0, 0.0, 0.0)
        var bare = 0.0
        for side in 0..<3 {
            switch (side + order) % 3 {
            case 0: parts = try measureHost(warm.copies, cache: warm.cache, store: store)
            case 1 where !hostOnly:
                before = try measureHost(baselineCopies.copies, cache: baselineCopies.cache, store: nil)
            case 2 where !hostOnly: bare = try measureBare(bareCopies)
            default: break
            }
        }
        return RoundTiming(
            host: parts.0 + parts.1 + parts.2, baseline: before.0 + before.1 + before.2, load: parts.0,
            register: parts.1, resolve: parts.2, bare: bare)
    }

    /// Replays the loader's steps on the `warm` copies (known to the store and to their probe cache), timing each,
    /// then the first start's entry and decode on `count` other fresh copies. Per plugin, in seconds.
    mutating func steps(_ warm: (copies: [(path: String, id: String)], cache: String), count: Int) throws -> StepTiming
    {
        typealias Entry = @convention(c) () -> UnsafePointer<microapp_descriptor>?
        var timing = StepTiming()
        var cache: ProbeCache?
        timing.cacheRecord = seconds(clock.measure { cache = ProbeCache(file: warm.cache) })
        guard let cache else { throw BenchmarkError("\(warm.cache) could not be read") }
        let folder = (warm.copies[0].path as NSString).deletingLastPathComponent
        guard let lock = try PluginLock.load(in: folder) else { throw BenchmarkError("\(folder) has no lock") }
        for copy in warm.copies {
            var start = clock.now
            func lap(_ step: WritableKeyPath<StepTiming, Double>) {
                let now = clock.now
                timing[keyPath: step] += seconds(now - start)
                start = now
            }
            guard case .success(let library) = LibraryCopy.make(copy.path, store: store), library.isStored else {
                throw BenchmarkError("\(copy.path) is not in the store")
            }
            lap(\.storeLookup)
            guard cache.record(for: library.sha256)?.description != nil,
                lock.problem(with: copy.path, sha256: library.sha256) == nil
            else { throw BenchmarkError("\(copy.path) is not described in its cache or not locked") }
            lap(\.recordAndLock)
            guard let handle = dlopen(library.path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
                throw BenchmarkError("\(library.path) did not load")
            }
            lap(\.open)
            let descriptor = MicroappEntry.withRecordedManifests {
                dlsym(handle, "microapp_entry").flatMap { unsafeBitCast($0, to: Entry.self)() }
            }
            guard let descriptor, descriptor.pointee.manifest_json == nil else {
                throw BenchmarkError("\(library.path)'s entry made a manifest it was not asked for")
            }
            lap(\.entryRecorded)
        }
        for step in [\StepTiming.storeLookup, \.recordAndLock, \.open, \.entryRecorded, \.cacheRecord] {
            timing[keyPath: step] /= Double(warm.copies.count)
        }
        var texts: [String] = []
        let handles = try factory.copies(count).map { copy in
            guard let handle = dlopen(copy.path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
                throw BenchmarkError("\(copy.path) did not load")
            }
            return handle
        }
        timing.entryBuilding =
            seconds(
                try clock.measure {
                    for handle in handles {
                        guard let symbol = dlsym(handle, "microapp_entry"),
                            let json = unsafeBitCast(symbol, to: Entry.self)()?.pointee.manifest_json
                        else { throw BenchmarkError("a fresh copy has no manifest") }
                        texts.append(String(cString: json))
                    }
                }) / Double(count)
        timing.decode =
            seconds(try clock.measure { for text in texts { _ = try ManifestCoding.decode(text) } }) / Double(count)
        return timing
    }
}
