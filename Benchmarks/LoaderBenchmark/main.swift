// Loader benchmark: the host's full path for N fresh plugin copies as a warm `microapp run` takes it — reading the
// probe cache, `PluginSet.load` with screening (the folder's `plugins.lock` checked by SHA-256, each verdict from the
// cache), `PluginLoader.register` of each, `PluginSet.resolve` of manifests with requirements like the demo
// features' (two host services and the session) — against a bare `dlopen` + `dlsym("microapp_entry")` of N other
// fresh copies, for N = 1, 20, 200; host and bare alternate first, and the order of the sizes rotates, round by
// round. It prints medians and ratios; it never fails on time (only when the copies were not screened, loaded,
// registered and resolved as N distinct features).
//
//     swift run -c release loader-benchmark [--rounds R]      (default 7 rounds)
//
// Copies are never unloaded (the host never dlcloses), so memory grows by 2 × (1 + 20 + 200) images a round.
// Before the rounds, the loader's steps are replayed one by one on fresh copies to show where (a) − (b) goes.
import BenchmarkSupport
import CommandLineSpec
import Foundation

let sizes = [1, 20, 200]
let command = CommandSpec(
    "loader-benchmark", summary: "the host's full loading path against a bare dlopen, for 1, 20 and 200 plugins",
    options: [.value("--rounds", "R", help: "how many rounds (default 7)")])
let rounds = positive(command.parseOrExit(Array(CommandLine.arguments.dropFirst())), "--rounds", 7)

/// Everything the run prints, in order.
@MainActor
func runBenchmark() throws {
    let build = try BuildFolder.current()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loader-benchmark-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: folder) }  // Loaded images stay mapped after unlink.
    let compileStart = ContinuousClock.now
    var benchmark = LoaderBenchmark(factory: try PluginFactory(build: build, folder: folder), folder: folder)
    let compileTime = seconds(ContinuousClock.now - compileStart)
    print("loader benchmark — SDK: \(build.sdkLibrary)")
    print(
        "plugin: Swift, compiled once in \(fixed(compileTime, 1)) s, \(benchmark.factory.librarySize) bytes;",
        "id patched in \(benchmark.factory.patchedPlaces) places per copy")
    let residentBefore = residentBytes()

    // Warm-up, not counted: first use of the loader paths, the SDK's tables, the page cache of the template.
    _ = try benchmark.round(20, hostFirst: true)
    let stepCount = 100
    let steps = try (0..<3).map { _ in try benchmark.steps(stepCount) }

    var timings: [Int: [RoundTiming]] = [:]
    for round in 0..<rounds {
        // Rotate the sizes, so no size always runs first (on a cold cache) or after the largest one.
        for step in 0..<sizes.count {
            let size = sizes[(round + step) % sizes.count]
            timings[size, default: []].append(try benchmark.round(size, hostFirst: round % 2 == 0))
        }
    }
    let images = (rounds * sizes.reduce(0, +) + 20) * 2 + 3 * 2 * stepCount
    let grown = Double(residentBytes() - residentBefore) / 1_048_576

    print(
        "rounds: \(rounds) (a/b order alternating, sizes rotating), \(images) images loaded,",
        "resident memory +\(fixed(grown, 0)) MiB")
    print("")
    print("per plugin, median of \(rounds) rounds (µs)")
    print("(a) host, warm start: screened load (cache read, lock SHA-256, cached verdict, open) + register + resolve")
    print("   N │ (a) host: load + register + resolve = total │ (b) dlopen+dlsym │ (a)/(b) target ≤ 2×")
    print("─────┼────────────────────────────────────────────┼──────────────────┼────────────────────")
    for size in sizes {
        let rows = timings[size] ?? []
        let micro = { (value: (RoundTiming) -> Double) in median(rows.map(value)) / Double(size) * 1e6 }
        let host = micro(\.host)
        let bare = micro(\.bare)
        let ratio = host / bare
        print(
            "\(pad(String(size), 4)) │ \(fixed(micro(\.load), 1, width: 8)) + \(fixed(micro(\.register), 1, width: 8))",
            "+ \(fixed(micro(\.resolve), 1, width: 7)) = \(fixed(host, 1, width: 8)) │ \(fixed(bare, 1, width: 16)) │",
            "\(fixed(ratio, 2, width: 6))× \(ratio <= 2 ? "✓" : "✗ over target")")
    }
    print("")
    print("where the host's time goes: its steps replayed on \(stepCount) fresh copies, median of 3 (µs per plugin)")
    let step = { (value: (StepTiming) -> Double) in fixed(median(steps.map(value)) * 1e6, 1, width: 6) }
    print("  lock check: PluginLock.digest(of:)      \(step(\.lockDigest))   read + SHA-256 of the whole file")
    print("  ProbeCache.verdict(for:), cached        \(step(\.cachedVerdict))   stat; ctime unchanged, no hash")
    print("  file check (stat + ELF header)          \(step(\.fileCheck))")
    print("  SDK version symbol (section headers, .dynsym) \(step(\.versionSymbol))   read before dlopen")
    print("  dlopen (NOW | LOCAL | NODELETE)         \(step(\.open))")
    print("  dlsym + microapp_entry()                \(step(\.entry))   the plugin encodes its manifest")
    print("  ManifestCoding.decode, right after load \(step(\.decodeAfterLoad))   what PluginLoader.load does")
    print("  ManifestCoding.decode, after all loads  \(step(\.decodeAfterAllLoads))   same work, casts cached")
    print("")
    print("linearity: batch cost(200) / cost(20), median batch times (ideal 10×, target ≤ 12×)")
    for (name, path) in [("(a) host", \RoundTiming.host), ("(b) bare", \RoundTiming.bare)] {
        let large = median((timings[200] ?? []).map { $0[keyPath: path] })
        let small = median((timings[20] ?? []).map { $0[keyPath: path] })
        let ratio = large / small
        print("  \(name): \(fixed(ratio, 2, width: 6))× \(ratio <= 12 ? "✓" : "✗ over target")")
    }
}

do {
    try runBenchmark()
} catch {
    FileHandle.standardError.write(Data("loader-benchmark: \(error)\n".utf8))
    exit(1)
}
