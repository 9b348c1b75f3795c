import Foundation
import MicroappHost
import MicroappSDK

#if canImport(Glibc)
    import Glibc
#endif

/// Seconds of one timed section.
func seconds(_ duration: Duration) -> Double {
    let (whole, attoseconds) = duration.components
    return Double(whole) + Double(attoseconds) * 1e-18
}

/// The median of `values` (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Resident memory of this process in bytes (from /proc/self/statm).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

/// Timings of one round for one N, in seconds for the whole batch.
struct RoundTiming {
    /// (a) `PluginSet.load`, then `PluginLoader.register` of each, then `PluginSet.resolve`.
    var host: Double
    /// The `PluginSet.load` part of (a).
    var load: Double
    /// The register part of (a).
    var register: Double
    /// The resolve part of (a).
    var resolve: Double
    /// (b) bare `dlopen(RTLD_NOW | RTLD_LOCAL)` + `dlsym("microapp_entry")`.
    var bare: Double
    /// (c) like (b), then calling `microapp_entry` (the plugin builds its descriptor and encodes its manifest).
    var entry: Double
}

/// Loads fresh copies both ways, interleaved, and checks the host path did its whole job each time.
@MainActor
struct LoaderBenchmark {
    var factory: PluginFactory
    let clock = ContinuousClock()

    /// (a): the host's full path for `copies`; fails if any copy is refused, unregistered or unresolved.
    mutating func measureHost(_ copies: [(path: String, id: String)]) throws -> (Double, Double, Double) {
        var report: PluginSet.LoadReport?
        let load = clock.measure { report = PluginSet.load(copies.map(\.path)) }
        guard let report, report.problems.isEmpty, report.images.count == copies.count else {
            throw BenchmarkError("PluginSet.load refused copies: \(report?.problems.map(\.description) ?? [])")
        }
        var registered: [any Feature.Type] = []
        let register = try clock.measure {
            for image in report.images { registered.append(try PluginLoader.register(image).get()) }
        }
        var resolution: Resolution?
        let resolve = clock.measure { resolution = PluginSet.resolve(report.images, container: Container()) }
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

    /// (b): bare `dlopen` + `dlsym` of `copies`, and (c) also calling the entry; fails if any does not open,
    /// lacks the entry, or (c) returns no descriptor.
    func measureBare(_ copies: [(path: String, id: String)], callEntry: Bool = false) throws -> Double {
        typealias Entry = @convention(c) () -> UnsafeRawPointer?
        var failures: [String] = []
        let bare = clock.measure {
            for copy in copies {
                guard let handle = dlopen(copy.path, RTLD_NOW | RTLD_LOCAL), let symbol = dlsym(handle, "microapp_entry")
                else {
                    failures.append(copy.path)
                    continue
                }
                if callEntry && unsafeBitCast(symbol, to: Entry.self)() == nil { failures.append(copy.path) }
            }
        }
        guard failures.isEmpty else { throw BenchmarkError("bare dlopen failed for \(failures)") }
        return seconds(bare)
    }

    /// One round for `count` plugins: fresh copies for each side, the order of the sides alternating by round.
    mutating func round(_ count: Int, hostFirst: Bool) throws -> RoundTiming {
        let hostCopies = try factory.copies(count)
        let bareCopies = try factory.copies(count)
        let entryCopies = try factory.copies(count)
        var parts = (0.0, 0.0, 0.0)
        var bare = 0.0
        var entry = 0.0
        if hostFirst {
            parts = try measureHost(hostCopies)
            bare = try measureBare(bareCopies)
            entry = try measureBare(entryCopies, callEntry: true)
        } else {
            entry = try measureBare(entryCopies, callEntry: true)
            bare = try measureBare(bareCopies)
            parts = try measureHost(hostCopies)
        }
        return RoundTiming(
            host: parts.0 + parts.1 + parts.2, load: parts.0, register: parts.1, resolve: parts.2, bare: bare,
            entry: entry)
    }

    /// Median time of `PluginLoader.load` of a copy that is already loaded: `dlopen` only bumps a reference count
    /// and the entry returns its cached descriptor, so this is the host's own work per file (file checks, dlsym,
    /// reading and decoding the manifest) without mapping a new image.
    mutating func reloadTime() throws -> Double {
        let copy = try factory.copies(1)[0]
        _ = try PluginLoader.load(copy.path).get()
        var samples: [Double] = []
        for _ in 0..<200 {
            samples.append(seconds(try clock.measure { _ = try PluginLoader.load(copy.path).get() }))
        }
        return median(samples)
    }

    /// Median time of `ManifestCoding.decode` of one plugin's manifest JSON, the host's side of reading it.
    func manifestDecodeTime() throws -> Double {
        let json = try ManifestCoding.encode(
            FeatureManifest(
                id: PluginFactory.featureID(1), version: 1, displayName: "Bench",
                routes: [RouteDeclaration("\(PluginFactory.featureID(1))://home")]))
        var samples: [Double] = []
        for _ in 0..<200 {
            samples.append(seconds(try clock.measure { _ = try ManifestCoding.decode(json) }))
        }
        return median(samples)
    }
}
