import BenchmarkSupport
import Foundation
import MicroappLoading
import MicroappPlatform

/// What one child process measured while loading a set of libraries (seconds).
struct ChildLoad: Codable {
    /// Reading the probe cache file (`ProbeCache(file:)`); 0 without screening.
    var cacheRead: Double
    /// `PluginSet.load`, with or without screening.
    var load: Double
    /// Writing the probe cache (`ProbeCache.save`); 0 without screening.
    var cacheSave: Double
    /// After the load, `ProbeCache.verdict(for:)` of every path again, not part of `total` (a stat each; the file is
    /// hashed only when its ctime changed since the verdict was recorded).
    var cacheCheck: Double
    /// After that, `PluginLock.digest(of:)` of every path (reading the file and hashing it), not part of `total`:
    /// what a cache lookup would cost if it hashed, and what a locked folder's check costs per library.
    var digest: Double
    /// Libraries that loaded.
    var images: Int
    /// Libraries refused, with the first reason.
    var problems: [String]
    /// Libraries probed in a child process (not answered by the cache).
    var probed: Int

    /// Everything a start pays for its plugins.
    var total: Double { cacheRead + load + cacheSave }
}

/// The hidden `load-child` subcommand: loads `paths` in this fresh process, nothing loaded before, and prints one
/// JSON line of `ChildLoad`. With `cache` the libraries are screened (`PluginScreening` with a child-process probe
/// running `probe`), the way `microapp run` starts.
@MainActor
func loadChild(paths: [String], cache: String?, probe: String?) {
    let clock = ContinuousClock()
    var result = ChildLoad(
        cacheRead: 0, load: 0, cacheSave: 0, cacheCheck: 0, digest: 0, images: 0, problems: [], probed: 0)
    var report: PluginSet.LoadReport?
    if let cache, let probe {
        var screening: PluginScreening?
        result.cacheRead = seconds(
            clock.measure {
                screening = PluginScreening(
                    probe: PluginProbe(executable: probe, environment: .process), cache: ProbeCache(file: cache))
            })
        guard var screening else { return }
        result.load = seconds(clock.measure { report = PluginSet.load(paths, screening: &screening) })
        result.cacheSave = seconds(clock.measure { screening.cache.save() })
        result.probed = screening.probed
        let cache = screening.cache
        let digests = paths.map { (try? PluginLock.digest(of: $0)) ?? "" }
        result.cacheCheck = seconds(
            clock.measure { for digest in digests { _ = cache.record(for: digest)?.verdict } }
        )
        result.digest = seconds(clock.measure { for path in paths { _ = try? PluginLock.digest(of: path) } })
    } else {
        result.load = seconds(clock.measure { report = PluginSet.load(paths) })
    }
    result.images = report?.images.count ?? 0
    result.problems = report?.problems.map(\.description) ?? []
    let line = (try? JSONEncoder().encode(result)) ?? Data()
    FileHandle.standardOutput.write(line + Data("\n".utf8))
}

/// Cold start (every library probed in a child process, empty cache) against warm start (the same files, verdicts
/// cached) against a plain load without screening, each in a fresh process of this executable.
struct StartupBenchmark {
    var factory: PluginFactory
    /// The `microapp` executable the probes run (`microapp probe --json FILE`).
    let probe: String
    /// Where cache files go.
    let folder: String
    /// Libraries per start.
    let count: Int
    private var caches = 0

    init(factory: PluginFactory, probe: String, folder: String, count: Int) {
        self.factory = factory
        self.probe = probe
        self.folder = folder
        self.count = count
    }

    /// One round's three starts.
    struct Round {
        var cold: ChildLoad
        var warm: ChildLoad
        var plain: ChildLoad
    }

    /// Cold then warm on one fresh set of copies and an empty cache; plain on another fresh set, before or after.
    mutating func round(plainFirst: Bool) throws -> Round {
        let screened = try factory.copies(count).map(\.path)
        let unscreened = try factory.copies(count).map(\.path)
        caches += 1
        let cache = folder + "/probe-cache-\(caches).json"
        var plain: ChildLoad?
        if plainFirst { plain = try start(unscreened, cache: nil, expectProbed: 0) }
        let cold = try start(screened, cache: cache, expectProbed: count)
        let warm = try start(screened, cache: cache, expectProbed: 0)
        if !plainFirst { plain = try start(unscreened, cache: nil, expectProbed: 0) }
        return Round(cold: cold, warm: warm, plain: plain!)
    }

    /// Runs `load-child` in a new process and checks that every library loaded and was probed as expected.
    private func start(_ paths: [String], cache: String?, expectProbed: Int) throws -> ChildLoad {
        var arguments = ["load-child"]
        if let cache { arguments += ["--cache", cache, "--probe", probe] }
        let (status, output) = try run(BuildFolder.currentExecutable, arguments + ["--"] + paths)
        guard status == 0, let line = output.split(separator: "\n").last,
            let result = try? JSONDecoder().decode(ChildLoad.self, from: Data(line.utf8))
        else { throw BenchmarkError("load-child failed (status \(status)):\n\(output)") }
        guard result.images == paths.count, result.problems.isEmpty, result.probed == expectProbed else {
            throw BenchmarkError(
                "load-child loaded \(result.images) of \(paths.count), probed \(result.probed) (expected \(expectProbed)):\n"
                    + result.problems.prefix(3).joined(separator: "\n"))
        }
        return result
    }
}

/// Builds `microapp` (the probe executable) in the configuration and scratch folder of this benchmark, since
/// `swift run host-benchmark` builds only the benchmark; falls back to an existing binary if the build fails.
func microappExecutable(_ build: BuildFolder) throws -> String {
    let executable = build.executable("microapp")
    // `<scratch>/<triple>/<configuration>`; the package root is two levels above this file's folder.
    let configuration = (build.path as NSString).lastPathComponent
    let scratch = ((build.path as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    FileHandle.standardError.write(Data("host-benchmark: building microapp (\(configuration)) for the probes …\n".utf8))
    let (status, output) = try run(
        "/usr/bin/env",
        [
            "swift", "build", "-c", configuration, "--product", "microapp", "--package-path", package,
            "--scratch-path", scratch,
        ])
    if status != 0 {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchmarkError("could not build microapp, which the probes run:\n\(output)")
        }
        FileHandle.standardError.write(
            Data("host-benchmark: building microapp failed; using the existing \(executable)\n".utf8))
    }
    return executable
}

/// Prints the startup table: cold, warm and plain starts of `count` libraries, medians of `rounds` rounds.
@MainActor
func runStartup(build: BuildFolder, count: Int, rounds: Int) throws {
    let probe = try microappExecutable(build)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("host-benchmark-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let factory = try PluginFactory(build: build, folder: folder)
    var benchmark = StartupBenchmark(factory: factory, probe: probe, folder: folder, count: count)
    _ = try benchmark.round(plainFirst: true)  // Warm-up, not counted: page cache of microapp, the SDK, the template.
    let results = try (0..<rounds).map { try benchmark.round(plainFirst: $0 % 2 == 1) }

    let total = { (side: KeyPath<StartupBenchmark.Round, ChildLoad>) in median(results.map { $0[keyPath: side].total })
    }
    let part = { (side: KeyPath<StartupBenchmark.Round, ChildLoad>, value: KeyPath<ChildLoad, Double>) in
        median(results.map { $0[keyPath: side][keyPath: value] })
    }
    let cold = total(\.cold)
    let warm = total(\.warm)
    let plain = total(\.plain)
    print("startup: \(count) plugins (Swift, \(factory.librarySize) bytes each), each start in a fresh process")
    print("probe: \(probe) probe --json FILE, one child process per library")
    print("median of \(rounds) rounds (cold → warm on the same fresh copies, plain on others, order alternating)")
    print("")
    print("                                    cache read      load   cache save     total   per plugin")
    print("                                          (ms)      (ms)         (ms)      (ms)         (ms)")
    for (name, side) in [
        ("cold: empty cache, all probed  ", \StartupBenchmark.Round.cold),
        ("warm: all verdicts cached      ", \.warm),
        ("plain: no screening (reference)", \.plain),
    ] {
        let sideTotal = total(side)
        print(
            " \(name) \(fixed(part(side, \.cacheRead) * 1e3, 2, width: 9)) \(fixed(part(side, \.load) * 1e3, 2, width: 9))",
            "\(fixed(part(side, \.cacheSave) * 1e3, 2, width: 12)) \(fixed(sideTotal * 1e3, 2, width: 9))",
            "\(fixed(sideTotal / Double(count) * 1e3, 3, width: 12))")
    }
    print("")
    let ratio = cold / warm
    print("warm vs cold: \(fixed(ratio, 1))× faster   target ≥ 5× \(ratio >= 5 ? "✓" : "✗ under target")")
    print("probe cost per library: (cold − plain) / \(count) = \(fixed((cold - plain) / Double(count) * 1e3, 2)) ms")
    print(
        "screening overhead per library on a warm start: (warm − plain) / \(count) =",
        fixed((warm - plain) / Double(count) * 1e3, 3), "ms")
    let check = median(results.map(\.warm.cacheCheck)) / Double(count)
    let digest = median(results.map(\.warm.digest)) / Double(count)
    print(
        "  timed again after the load: ProbeCache.verdict(for:) \(fixed(check * 1e3, 3)) ms;",
        "PluginLock.digest(of:) (a locked folder's check) \(fixed(digest * 1e3, 3)) ms")
}
