// Loader benchmark: the host's full path for N fresh plugin copies as a warm `microapp run` takes it — reading the
// probe cache, `PluginSet.load` with screening (the folder's `plugins.lock` checked by SHA-256, each verdict from the
// cache), `PluginLoader.register` of each, `PluginSet.resolve` of manifests with requirements like the demo
// features' (two host services and the session) — against a bare `dlopen` + `dlsym("microapp_entry")` of N other
// fresh copies, for N = 1, 20, 200; host and bare alternate first, and the order of the sizes rotates, round by
// round. It prints medians and ratios; it never fails on time (only when the copies were not screened, loaded,
// registered and resolved as N distinct features).
//
//     swift run -c release loader-benchmark [--rounds R] [--plugin FILE] [--host-only]      (default 7 rounds)
//
// Under callgrind (instruction counts hold under load): a template compiled beforehand (valgrind cannot start swiftc),
// a copy of the binary without DWARF 5 (valgrind 3.19 cannot read it), and only the host's side collected:
//     objcopy --strip-debug .build/release/loader-benchmark .build/release/loader-benchmark-cg
//     valgrind --tool=callgrind --toggle-collect='*measureHost*' .build/release/loader-benchmark-cg --rounds 1 \
//         --plugin libBenchTemplate.so --host-only
// One profile per call of (a), to read N = 1 apart from the others (callgrind.out.1 the warm-up's 20, then N = 1, 20,
// 200): add `--dump-after=` and measureHost's mangled name (a pattern with `*` dumps nothing), as `nm` prints it.
//
// Copies are never unloaded (the host never dlcloses), so memory grows by 2 × (1 + 20 + 200) images a round.
// Before the rounds, the loader's steps are replayed one by one on warm copies to show where (a) − (b) goes.
import BenchmarkSupport
import CommandLineSpec
import Foundation

let sizes = [1, 20, 200]
let command = CommandSpec(
    "loader-benchmark", summary: "the host's full loading path against a bare dlopen, for 1, 20 and 200 plugins",
    options: [
        .value("--rounds", "R", help: "how many rounds (default 7)"),
        .value(
            "--plugin", "FILE",
            help: "a template plugin an earlier run compiled, instead of compiling one (valgrind cannot start swiftc)"),
        .flag("--host-only", help: "measure only the host's path, (a) (for a run under callgrind)"),
    ])
let parsed = command.parseOrExit(Array(CommandLine.arguments.dropFirst()))
let rounds = positive(parsed, "--rounds", 7)

/// Everything the run prints, in order.
@MainActor
func runBenchmark() throws {
    let build = try BuildFolder.current()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loader-benchmark-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: folder) }  // Loaded images stay mapped after unlink.
    let compileStart = ContinuousClock.now
    var benchmark = try LoaderBenchmark(
        factory: try PluginFactory(build: build, folder: folder, compiled: parsed.value("--plugin")), folder: folder,
        hostOnly: parsed.flag("--host-only"))
    let compileTime = seconds(ContinuousClock.now - compileStart)
    print("loader benchmark — SDK: \(build.sdkLibrary)")
    print(
        "plugin: Swift, compiled once in \(fixed(compileTime, 1)) s, \(benchmark.factory.librarySize) bytes;",
        "id patched in \(benchmark.factory.patchedPlaces) places per copy")
    let residentBefore = residentBytes()

    // The warm host's copies, made first: the store remembers a library only once it is a second old (a write in
    // the same tick could hide behind its identity), so they age together, then a "first start" stores each.
    var warmBatches: [Int: [(copies: [(path: String, id: String)], cache: String)]] = [:]
    let warmUp = try benchmark.warmBatch(20)
    for size in sizes { warmBatches[size] = try (0..<rounds).map { _ in try benchmark.warmBatch(size) } }
    let stepCount = 100
    let stepBatches = try (0..<3).map { _ in try benchmark.warmBatch(stepCount) }
    Thread.sleep(forTimeInterval: 1.2)
    try benchmark.warm(warmUp)
    for batch in warmBatches.values.joined() { try benchmark.warm(batch) }
    for batch in stepBatches { try benchmark.warm(batch) }

    // Warm-up, not counted: first use of the loader paths, the SDK's tables, the page cache of the template.
    _ = try benchmark.round(20, warm: warmUp, order: 0)
    let steps = try stepBatches.map { try benchmark.steps($0, count: stepCount) }

    var timings: [Int: [RoundTiming]] = [:]
    for round in 0..<rounds {
        // Rotate the sizes, so no size always runs first (on a cold cache) or after the largest one.
        for step in 0..<sizes.count {
            let size = sizes[(round + step) % sizes.count]
            let warm = warmBatches[size]![round]
            timings[size, default: []].append(try benchmark.round(size, warm: warm, order: round))
        }
    }
    let images = (rounds * sizes.reduce(0, +) + 20) * 3 + 1 + 3 * 2 * stepCount
    let grown = Double(residentBytes() - residentBefore) / 1_048_576

    print(
        "rounds: \(rounds) (a/a0/b order rotating, sizes rotating), \(images) images loaded,",
        "resident memory +\(fixed(grown, 0)) MiB")
    print("")
    print("per plugin, median of \(rounds) rounds (µs)")
    print("(a) host, warm start: screened load (cache read, copies from the store unread, lock by the recorded digest,")
    print("    cached verdict with the recorded manifest, open) + register + resolve")
    print(
        "(a0) the same before records and the store: each copy read, hashed, copied, its symbols read, manifest decoded"
    )
    print(
        "   N │ (a) host: load + register + resolve = total │  (a0) before │ (b) dlopen+dlsym │ (a)/(b) ≤ 2× │ (a0)/(b)"
    )
    print(
        "─────┼────────────────────────────────────────────┼──────────────┼──────────────────┼──────────────┼─────────")
    for size in sizes {
        let rows = timings[size] ?? []
        let micro = { (value: (RoundTiming) -> Double) in median(rows.map(value)) / Double(size) * 1e6 }
        let host = micro(\.host)
        let bare = micro(\.bare)
        let baseline = micro(\.baseline)
        let ratio = host / bare
        print(
            "\(pad(String(size), 4)) │ \(fixed(micro(\.load), 1, width: 8)) + \(fixed(micro(\.register), 1, width: 8))",
            "+ \(fixed(micro(\.resolve), 1, width: 7)) = \(fixed(host, 1, width: 8)) │ \(fixed(baseline, 1, width: 12)) │",
            "\(fixed(bare, 1, width: 16)) │ \(fixed(ratio, 2, width: 6))× \(ratio <= 2 ? "✓    " : "✗ over") │",
            "\(fixed(baseline / bare, 2, width: 6))×")
    }
    print("")
    print("where the host's time goes: its steps replayed on \(stepCount) warm copies, median of 3 (µs per plugin)")
    let step = { (value: (StepTiming) -> Double) in fixed(median(steps.map(value)) * 1e6, 1, width: 6) }
    print(
        "  probe cache read, per record           \(step(\.cacheRecord))   the compact form (no JSON decoder): verdict, manifest, SDK version"
    )
    print("  library store lookup                   \(step(\.storeLookup))   open, fstat, readlink, lstat; no read")
    print("  probe record and lock entry            \(step(\.recordAndLock))   by the digest the store answered")
    print("  dlopen (NOW | LOCAL | NODELETE)        \(step(\.open))")
    print(
        "  dlsym + microapp_entry(), recorded     \(step(\.entryRecorded))   no manifest built (withRecordedManifests)")
    print("a first start instead (fresh copies, no record):")
    print(
        "  dlsym + microapp_entry() building it   \(step(\.entryBuilding))   the plugin builds and encodes its manifest"
    )
    print("  ManifestCoding.decode                  \(step(\.decode))   after all loads")
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
