import CommandLineSpec
import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappIsolation
import MicroappLoading
import MicroappPlatform
import MicroappSDK

#if canImport(Glibc)
    import Glibc
#endif

// Hot-swap figures: swap latency (library ready → new frame with its state restored) and RSS growth per swap.
// Compiles a small feature twice with swiftc against the SDK beside this executable, then swaps them back and forth.

let options = CommandSpec(
    "hot-swap-benchmark", summary: "swap latency and memory growth per hot swap",
    options: [
        .value(
            "--baseline", "FILE",
            help:
                "also swap isolated builds in children of FILE (an older microapp copied into the same build folder), in blocks of 10 alternating with this build's"
        ),
        .value("--blocks", "N", help: "isolated swaps in N blocks of 10 for each build (default 5)"),
        .flag("--isolated-only", help: "only the isolated swaps (no probe, no in-process swaps, no RSS figure)"),
    ],
    discussion: "Compiles a small feature twice with swiftc and swaps the two builds back and forth."
).parseOrExit(Array(CommandLine.arguments.dropFirst()))

/// Writes a figure's line to stdout the moment it is measured. `print` goes through C's stdio, which holds lines in its
/// buffer while stdout is a pipe or a file: a run that failed later (a trap, a kill) lost every figure it had measured —
/// the run that printed none.
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// `report` of a line made by `String(format:)`.
func report(format: String, _ arguments: CVarArg...) { report(String(format: format, arguments: arguments)) }

/// Ends the run on a failure, naming the step and the reason (the figures measured so far are out already).
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("hot-swap-benchmark: \(message)\n".utf8))
    exit(1)
}

let build = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
let work = FileManager.default.temporaryDirectory.appendingPathComponent("hot-swap-bench-\(getpid())").path

func compile(greeting: String) -> String {
    let folder = work + "/" + greeting
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let source = """
        import Foundation
        import MicroappSDK
        public enum BenchFeature: Feature {
            public static var manifest: FeatureManifest {
                FeatureManifest(id: "bench", version: 1, displayName: "Bench", routes: [RouteDeclaration("bench://home")])
            }
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root { BenchRoot() }
        }
        struct BenchState: Codable { var name = ""; var taps = 0 }
        @MainActor final class BenchRoot: Root {
            var state = BenchState()
            func screen(at location: Location) -> Screen {
                Screen(title: "Bench", content: [
                    .text(Text("\(greeting) \\(state.name) \\(state.taps)")),
                    .field(TextField(id: "name", label: "Name", text: state.name)),
                ])
            }
            func handle(_ action: Action, at location: Location) {
                if case .input(_, let text) = action { state.name = text } else { state.taps += 1 }
            }
            func snapshot() -> Data? { try? JSONEncoder().encode(state) }
            func restore(from snapshot: Data) throws { state = try JSONDecoder().decode(BenchState.self, from: snapshot) }
        }
        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? { MicroappEntry.export(BenchFeature.self) }
        """
    try? source.write(toFile: folder + "/Bench.swift", atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
        "swiftc", "-emit-library", "-swift-version", "6", "-module-name", "Bench", "-I", build + "/Modules", "-Xcc",
        "-fmodule-map-file=\(build)/CMicroappABI.build/module.modulemap", "-L", build, "-lMicroappSDK", "-Xlinker",
        "-rpath", "-Xlinker", build, "-o", folder + "/libBench.so", folder + "/Bench.swift",
    ]
    do { try process.run() } catch { fail("swiftc could not be started: \(error)") }
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { fail("swiftc failed for \(greeting) (its errors are above)") }
    return folder + "/libBench.so"
}

func residentKiB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

func milliseconds(_ elapsed: Duration) -> Double {
    Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
}

/// Whether the frame on screen shows the name typed before the swaps.
@MainActor
func showsRestoredState(_ runtime: AppRuntime) -> Bool {
    guard case .text(let text) = runtime.frame.screen.content.first else { return false }
    return text.value.contains("Rick")
}

/// The first version, loaded here or (with `isolation`) started in a child of its own.
@MainActor
func firstVersion(_ library: String, isolation: IsolationLog?) async -> any LoadedPlugin {
    guard let isolation else {
        switch PluginLoader.load(library) {
        case .success(let plugin): return plugin
        case .failure(let problem): fail("the first version did not load: \(problem.reason)")
        }
    }
    switch await IsolatedPlugin.launch(library, executable: build + "/microapp", log: isolation) {
    case .success(let plugin): return plugin
    case .failure(let problem): fail("the isolated first version did not start: \(problem.reason)")
    }
}

/// Swaps the two builds back and forth `swaps` times, `gap` apart, timing each from the call to the new frame.
/// With `isolation`, the feature runs in a child and every new build starts in a new child (forked by its zygote).
@MainActor
/// With `prepared`, each build is prepared (copied, lock-checked, probed) first, as the watch loop does on the build's
/// thread, and the time is the swap's alone.
func measure(
    probe: PluginProbe?, swaps: Int, gap: Duration, libraries: [String], isolation: IsolationLog? = nil,
    prepared: Bool = false
) async -> (latencies: [Double], rss: [Int]) {
    let first = await firstVersion(libraries[0], isolation: isolation)
    let container = Container()
    let resolution = DependencyResolver.resolve(
        [Candidate(manifest: first.manifest, path: first.path, trust: .own)], hostOffers: container.offers)
    let runtime = AppRuntime(
        sources: [.plugin(first)], resolution: resolution, container: container,
        options: AppRuntime.Options(now: { .now }))
    let swapper = HotSwapper(
        runtime: runtime, libraries: HotSwapper.libraries(of: [first]), probe: probe, swapsDirectory: work + "/swaps")
    swapper.isolation = isolation
    var framed: ContinuousClock.Instant?
    runtime.onUpdate = { _, _ in framed = .now }
    runtime.open("bench://home")
    // An isolated feature's first screen is its child's answer: the field to type in is there once it came.
    let opened = ContinuousClock.now
    while runtime.frame.screen.content.count < 2 {
        guard ContinuousClock.now - opened < .seconds(10) else { fail("no first screen within 10 s") }
        await Task.yield()
    }
    runtime.send(.action(.input(id: "name", text: "Rick")))
    var latencies: [Double] = []
    var rss: [Int] = [residentKiB()]
    for index in 1...swaps {
        // Let the previous update run first, so the frame waited for is this swap's.
        try? await Task.sleep(for: gap)
        let preparation = swapper.preparation(for: "bench")
        let library = libraries[index % 2]
        let ready = prepared ? await BlockingWork.run { preparation.prepare(library) } : nil
        framed = nil
        let started = ContinuousClock.now
        let swapped =
            if let ready { await swapper.swap(ready) } else { await swapper.swapLibrary(at: library) }
        if case .failure(let problem) = swapped { fail("swap \(index) failed: \(problem.reason)") }
        // Until a frame shows the restored state (an isolated feature's screen is its new child's answer).
        while framed == nil || !showsRestoredState(runtime) {
            guard ContinuousClock.now - started < .seconds(10) else {
                fail("no frame with the state restored within 10 s of swap \(index)")
            }
            await Task.yield()
        }
        let elapsed = framed! - started
        latencies.append(milliseconds(elapsed))
        rss.append(residentKiB())
    }
    swapper.stop()
    return (latencies, rss)
}

/// The probe alone, side by side: a process started for the library vs one started ahead and waiting for it.
func probeCosts(_ probe: PluginProbe, rounds: Int, library: String) -> (fresh: [Double], standby: [Double]) {
    var fresh: [Double] = []
    var standby: [Double] = []
    for _ in 0..<rounds {
        var started = ContinuousClock.now
        let verdict = probe.verdict(for: library)
        guard verdict == .usable else { fail("the probe did not pass \(library): \(verdict)") }
        fresh.append(milliseconds(ContinuousClock.now - started))
        let waiting = probe.standby()
        usleep(100_000)  // what a rebuild gives it, and more: a build takes over a second
        started = ContinuousClock.now
        let waited = probe.verdict(for: library, using: waiting)
        guard waited == .usable else { fail("the waiting probe did not pass \(library): \(waited)") }
        standby.append(milliseconds(ContinuousClock.now - started))
    }
    return (fresh, standby)
}

let libraries = [compile(greeting: "Hello"), compile(greeting: "Howdy")]
let isolatedOnly = options.flag("--isolated-only")
let blocks = options.value("--blocks").flatMap { Int($0) } ?? 5
/// The in-process rows: the probe alone, swaps as shipped, prepared and unprobed; the last one's RSS growth.
@MainActor
func inProcessRows() async {
    let probe = PluginProbe(executable: build + "/microapp", environment: .process, timeout: .seconds(5))
    let costs = probeCosts(probe, rounds: 30, library: libraries[0])
    report(
        format:
            "probe alone, 30 rounds interleaved: process started for the library p50 %.1f ms; started ahead and waiting p50 %.1f ms (%.1f× faster)",
        percentile(costs.fresh, 0.5), percentile(costs.standby, 0.5),
        percentile(costs.fresh, 0.5) / percentile(costs.standby, 0.5))
    // Swaps 100 ms apart: a rebuild takes over a second, time enough for the next probe process to be waiting.
    let probed = await measure(probe: probe, swaps: 50, gap: .milliseconds(100), libraries: libraries)
    report(
        format:
            "swap latency as shipped (copy + waiting child probe + load + restore + frame), 50 swaps: p50 %.1f ms, p90 %.1f ms (target p50 ≤ 20 ms)",
        percentile(probed.latencies, 0.5), percentile(probed.latencies, 0.9))
    let prepared = await measure(
        probe: probe, swaps: 50, gap: .milliseconds(100), libraries: libraries, prepared: true)
    report(
        format:
            "swap latency, probed while building (prepared on the build's thread; the swap: load + restore + frame), 50 swaps: p50 %.2f ms, p90 %.2f ms (%.1f× faster than as shipped before; target p50 ≤ 5 ms)",
        percentile(prepared.latencies, 0.5), percentile(prepared.latencies, 0.9),
        percentile(probed.latencies, 0.5) / percentile(prepared.latencies, 0.5))
    let direct = await measure(probe: nil, swaps: 100, gap: .milliseconds(2), libraries: libraries)
    report(
        format: "swap latency, unprobed (copy + load + restore + frame), 100 swaps: p50 %.2f ms, p90 %.2f ms",
        percentile(direct.latencies, 0.5), percentile(direct.latencies, 0.9))
    let growth = Double(direct.rss.last! - direct.rss[10]) / 90
    report(
        "RSS: \(direct.rss[0]) KiB before, \(direct.rss.last!) KiB after 100 more swaps; growth \(String(format: "%.0f", growth)) KiB per swap (swaps 10–100)"
    )
}
if !isolatedOnly { await inProcessRows() }
/// `swaps` isolated swaps in children forked from a template of `executable` started with `environment`.
@MainActor
func isolatedSwaps(
    _ executable: String, swaps: Int, environment: [String: String] = ChildLaunch.featureEnvironment(.process)
) async -> [Double] {
    let zygote: Zygote
    do {
        zygote = try Zygote.start(executable: executable, environment: environment)
    } catch {
        fail("the zygote of \(executable) did not start: \(error)")
    }
    let isolationLog = IsolationLog(zygote: zygote, environment: .process)
    let isolated = await measure(
        probe: nil, swaps: swaps, gap: .milliseconds(20), libraries: libraries, isolation: isolationLog)
    isolationLog.stopAll()
    zygote.stop()
    return isolated.latencies
}
// Without the new child's namespaces (`MICROAPP_NAMESPACES=0`), and in the baseline's children when one is given: blocks
// of 10 in turn, so load hits each alike.
var withoutNamespaces = ChildLaunch.featureEnvironment(.process)
withoutNamespaces[ProcessNamespaces.variable] = "0"
var isolated: [Double] = []
var unnamespaced: [Double] = []
var before: [Double] = []
let baseline = options.value("--baseline")
for _ in 0..<blocks {
    isolated += await isolatedSwaps(build + "/microapp", swaps: 10)
    unnamespaced += await isolatedSwaps(build + "/microapp", swaps: 10, environment: withoutNamespaces)
    if let baseline { before += await isolatedSwaps(baseline, swaps: 10) }
}
report(
    format:
        "swap latency, isolated (copy + fork of the zygote + sandbox + load + restore + first screen in the new child), %d swaps: p50 %.1f ms, p90 %.1f ms (target p50 ≤ 8 ms)",
    isolated.count, percentile(isolated, 0.5), percentile(isolated, 0.9))
report(
    format:
        "  the same without the child's namespaces (MICROAPP_NAMESPACES=0), %d swaps interleaved: p50 %.1f ms, p90 %.1f ms; the namespaces add %.2f ms at p50 (%.2f×)",
    unnamespaced.count, percentile(unnamespaced, 0.5), percentile(unnamespaced, 0.9),
    percentile(isolated, 0.5) - percentile(unnamespaced, 0.5),
    percentile(isolated, 0.5) / percentile(unnamespaced, 0.5))
if !before.isEmpty {
    report(
        format:
            "  the same in children of the baseline, %d swaps interleaved: p50 %.1f ms, p90 %.1f ms; this build / the baseline at p50 %.2f×",
        before.count, percentile(before, 0.5), percentile(before, 0.9),
        percentile(isolated, 0.5) / percentile(before, 0.5))
}
try? FileManager.default.removeItem(atPath: work)
