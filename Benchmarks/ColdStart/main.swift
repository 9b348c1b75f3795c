import BenchmarkSupport
import CommandLineSpec
import Foundation
import MicroappLoading
import MicroappPlatform

#if canImport(Glibc)
    import Glibc
#endif

// Cold start to first frame: the plugin host (`microapp`, dlopen of every feature) against `monolith`, the same
// feature code linked statically (the floor). All run `--ui json` with stdin closed and are timed from spawn to
// the first `"type":"frame"` line on stdout whose screen is not loading (an isolated feature's screen shows the host's
// "Starting…" until its child answers: that frame is not counted); runs alternate so machine noise hits all alike.
// Rows whose features start after the first frame (every feature isolated, known from the probe cache's records) are
// also timed to their `ready` notice: every feature answered its start; "every load first" is the same start with
// `MICROAPP_START_LATE=0`, each child's handshake awaited before the first frame (the way before). The first `microapp`
// row starts as people do from the repository (it checks whether any feature needs a rebuild); every other start
// passes `--no-build` (no such check) and uses a probe cache of its own (a private `XDG_CACHE_HOME`): warm
// for most rows, and with one feature's entry removed before each start of the "one library re-probed" row, which is
// the start after that feature was rebuilt (its new library is hashed and probed in a child process once). Rows
// marked "template started" are the row above with `MICROAPP_ZYGOTE=started`: the template of isolated features and
// probes started as a process of its own once the app runs, instead of forked before `main` (the default); rows marked
// "supervisor forked after main" are the row above with `MICROAPP_SUPERVISOR=late`: the supervisor's app process
// forked once `main` ran, instead of before it (the default).
// Build in release:
//   swift build -c release && swift run -c release cold-start-benchmark [runs]
let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
let command = CommandSpec(
    "cold-start-benchmark", summary: "time to first frame: microapp against the statically linked monolith",
    operands: [.optional("RUNS")],
    options: [
        .value(
            "--baseline", "FILE",
            help:
                "also time FILE (an older microapp copied into the same build folder) on every microapp row, interleaved"
        ),
        .value(
            "--installed", "PREFIX",
            help:
                "also time the app `microapp install --prefix PREFIX` laid out (its own runtime in PREFIX/lib), as run"
        ),
        .flag(
            "--cpu",
            help:
                "measure the CPU time (user + system) of each whole run instead, its processes included: what a loaded machine does not blur"
        ),
    ],
    discussion: "Runs each command RUNS times (default 25), alternating; build in release first.")
let runs = runsOperand(of: command, fallback: 25)
let parsed = command.parseOrExit(Array(CommandLine.arguments.dropFirst()))
let baseline = parsed.value("--baseline")
let measuresCPU = parsed.flag("--cpu")
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cold-start-\(getpid())").path
let data = scratch + "/data"
// A probe cache of this run's own, so clearing an entry touches nobody else's cache; a baseline's rows have one of
// their own too: a build from before the compact form reads this build's cache as empty (and would re-probe every
// start), and this build rewrites a JSON cache in its own form.
let cacheHome = scratch + "/cache"
let baselineCacheHome = scratch + "/cache-baseline"
setenv("XDG_CACHE_HOME", cacheHome, 1)
/// The feature whose library is re-probed in the "after a rebuild" row.
let rebuiltLibrary = "libCharacters.so"
let microapp = [directory.appendingPathComponent("microapp").path, "--ui", "json", "--no-build", "--data", data]
/// `microapp` as people start it from the repository: with the check for features that need a rebuild first (none
/// does after `swift build -c release`; the check is what is timed).
let microappFromRepository = microapp.filter { $0 != "--no-build" }
/// One measured command; `reprobe` clears the rebuilt library's probe-cache entry before each start; `environment`
/// is set on top of this process's.
struct Command {
    var name: String
    var arguments: [String]
    var reprobe = false
    var environment: [String: String] = [:]
    /// Whether a `ready` notice follows the first frame (features started late): it is timed too.
    var startsLate = false

    /// The probe cache the command's starts use.
    var probeCache: String { (environment["XDG_CACHE_HOME"] ?? cacheHome) + "/microapp/probe-cache.json" }
}
/// Today's template of isolated features and probes against the one before: started as a process of its own once the
/// app runs (`MICROAPP_ZYGOTE=started`) instead of forked before `main`.
let startedTemplate = ["MICROAPP_ZYGOTE": "started"]
/// Today's supervisor against the one before: its app process forked once `main` ran (`MICROAPP_SUPERVISOR=late`)
/// instead of before it.
let lateSupervisor = ["MICROAPP_SUPERVISOR": "late"]
var measured: [Command] = [
    Command(
        name: "monolith (static)",
        arguments: [directory.appendingPathComponent("monolith").path, "--ui", "json", "--data", data]),
    Command(name: "microapp as run from the repository", arguments: microappFromRepository),
    Command(
        name: "  supervisor forked after main (before)", arguments: microappFromRepository, environment: lateSupervisor),
    Command(name: "microapp as run, warm probe cache", arguments: microapp),
    Command(name: "  supervisor forked after main (before)", arguments: microapp, environment: lateSupervisor),
    Command(name: "  template started (before)", arguments: microapp, environment: startedTemplate),
    Command(name: "microapp as run, one library re-probed", arguments: microapp, reprobe: true),
    Command(
        name: "  template started (before)", arguments: microapp, reprobe: true, environment: startedTemplate),
    Command(name: "microapp unsupervised, warm cache", arguments: microapp + ["--no-supervise"]),
    Command(name: "microapp unsupervised, no probe", arguments: microapp + ["--no-supervise", "--no-probe"]),
    Command(
        name: "microapp as run, every feature isolated", arguments: microapp + ["--isolation", "process"],
        startsLate: true),
    Command(
        name: "  every load first (before)", arguments: microapp + ["--isolation", "process"],
        environment: ["MICROAPP_START_LATE": "0"]),
    Command(
        name: "  template started (before)", arguments: microapp + ["--isolation", "process"],
        environment: startedTemplate),
]
// With --installed, the same start of the installed app: its runtime, SDK and plugins from the prefix.
if let prefix = parsed.value("--installed") {
    measured.append(
        Command(
            name: "microapp installed, warm probe cache", arguments: [prefix + "/bin/microapp"] + microapp.dropFirst()))
}
/// With --baseline, each microapp row is followed by the same start of the older executable.
let commands =
    baseline.map { older in
        measured.flatMap { command -> [Command] in
            guard command.arguments[0].hasSuffix("/microapp"), command.environment.isEmpty else { return [command] }
            var before = command
            before.startsLate = false
            before.name = "  baseline: " + command.name.dropFirst("microapp ".count)
            before.arguments[0] = older
            before.environment["XDG_CACHE_HOME"] = baselineCacheHome
            return [command, before]
        }
    } ?? measured
for command in commands where !FileManager.default.isExecutableFile(atPath: command.arguments[0]) {
    FileHandle.standardError.write(Data("missing \(command.arguments[0]); run `swift build -c release` first\n".utf8))
    exit(1)
}

/// Makes the rebuilt library new to the start, as a rebuild (new bytes, a new file) does: its probe record goes from
/// the private probe cache `file` and its file identity from the library store beside it, so the start hashes, copies
/// and probes it once. False when the cache has no record of it (the start would not probe, and the row would measure
/// the wrong thing).
func forgetRebuiltLibrary(in file: String) -> Bool {
    guard let digest = forgetRecord(in: file) else { return false }
    let store = (file as NSString).deletingLastPathComponent + "/libraries"
    for name in (try? FileManager.default.contentsOfDirectory(atPath: store)) ?? [] where name.hasPrefix("id-") {
        let link = store + "/" + name
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: link))?.hasPrefix(digest) == true {
            try? FileManager.default.removeItem(atPath: link)
        }
    }
    return true
}

/// Removes the rebuilt library's record from the probe cache `file`, kept in the form it is in (a baseline from
/// before the compact form wrote JSON), and answers the digest it had.
func forgetRecord(in file: String) -> String? {
    guard let contents = FileManager.default.contents(atPath: file) else { return nil }
    guard contents.first == UInt8(ascii: "{") else {
        var cache = ProbeCache(file: file)
        let digest = cache.forgetLibraries(where: { $0.hasSuffix("/" + rebuiltLibrary) }).first
        cache.save()
        return digest
    }
    guard var cache = (try? JSONSerialization.jsonObject(with: contents)) as? [String: Any],
        var libraries = cache["libraries"] as? [String: String], var records = cache["records"] as? [String: Any],
        let key = libraries.keys.first(where: { $0.hasSuffix("/" + rebuiltLibrary) }), let digest = libraries[key]
    else { return nil }
    records[digest] = nil
    libraries[key] = nil
    cache["records"] = records
    cache["libraries"] = libraries
    guard let text = try? JSONSerialization.data(withJSONObject: cache),
        FileManager.default.createFile(atPath: file, contents: text)
    else { return nil }
    return digest
}

/// This process's environment with `extra` set on top, for posix_spawn (the caller frees the strings).
func environment(adding extra: [String: String]) -> [UnsafeMutablePointer<CChar>?] {
    var variables = ProcessInfo.processInfo.environment
    variables.merge(extra) { $1 }
    return variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
}

/// Milliseconds from spawn to the first frame line whose screen is not loading and, with `untilReady`, to the `ready`
/// notice after it (else the same); nil if the program ended without them.
func timeToFirstFrame(
    _ arguments: [String], environment extra: [String: String] = [:], untilReady: Bool = false
) -> (frame: Double, ready: Double)? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var output: [Int32] = [0, 0]
    guard pipe(&output) == 0 else { return nil }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, output[1], 1)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addclose(&actions, output[0])
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment(adding: extra)
    defer { (argv + envp).forEach { free($0) } }
    let start = DispatchTime.now().uptimeNanoseconds
    var pid = pid_t()
    guard posix_spawn(&pid, arguments[0], &actions, nil, argv, envp) == 0 else { return nil }
    close(output[1])
    var seen = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 65536)
    var elapsed: Double?
    var ready: Double?
    while ready == nil {
        let count = read(output[0], &buffer, buffer.count)
        if count <= 0 { break }
        seen += buffer[0..<count]
        let now = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
        let lines = String(decoding: seen, as: UTF8.self).split(separator: "\n")
        if elapsed == nil,
            lines.contains(where: { $0.hasPrefix(#"{"type":"frame""#) && !$0.contains(#""type":"loading"}"#) })
        {
            elapsed = now
            if !untilReady { ready = now }
        }
        if elapsed != nil, untilReady, lines.contains(where: { $0.contains(#""code":"ready""#) }) { ready = now }
    }
    close(output[0])
    kill(pid, SIGKILL)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    guard let elapsed, let ready else { return nil }
    return (elapsed, ready)
}

/// Milliseconds of CPU (user + system) a whole run took, with every process it started and reaped: stdin at its end,
/// the app draws its first frame and ends (exit 0); nil when it did not.
func cpuOfWholeRun(_ arguments: [String], environment extra: [String: String] = [:]) -> Double? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for descriptor: Int32 in [0, 1, 2] {
        posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment(adding: extra)
    defer { (argv + envp).forEach { free($0) } }
    var pid = pid_t()
    guard posix_spawn(&pid, arguments[0], &actions, nil, argv, envp) == 0 else { return nil }
    var status: Int32 = 0
    var usage = rusage()
    guard wait4(pid, &status, 0, &usage) == pid, status == 0 else { return nil }
    func milliseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1000 + Double(time.tv_usec) / 1000 }
    return milliseconds(usage.ru_utime) + milliseconds(usage.ru_stime)
}

var samples: [[Double]] = Array(repeating: [], count: commands.count)
var readySamples: [[Double]] = Array(repeating: [], count: commands.count)
_ = commands.map { timeToFirstFrame($0.arguments, environment: $0.environment) }  // warm the page and probe caches
for run in 0..<runs {
    // Rotate the order each run, so no command always follows the same one.
    for step in 0..<commands.count {
        let index = (run + step) % commands.count
        if commands[index].reprobe && !forgetRebuiltLibrary(in: commands[index].probeCache) {
            print("the probe cache \(commands[index].probeCache) has no entry for \(rebuiltLibrary) to clear")
            exit(1)
        }
        let (arguments, extra) = (commands[index].arguments, commands[index].environment)
        let untilReady = commands[index].startsLate && !measuresCPU
        let measured =
            measuresCPU
            ? cpuOfWholeRun(arguments, environment: extra).map { (frame: $0, ready: $0) }
            : timeToFirstFrame(arguments, environment: extra, untilReady: untilReady)
        guard let milliseconds = measured else {
            print("\(commands[index].name) ended without a frame\(untilReady ? " and a ready notice" : "")")
            exit(1)
        }
        samples[index].append(milliseconds.0)
        readySamples[index].append(milliseconds.1)
    }
}
/// The issue-23 goal of each row, as a ratio to the monolith.
func target(of command: Command) -> Double {
    if command.reprobe || command.arguments.contains("process") { return 1.5 }
    if command.arguments.contains("--no-build") && !command.arguments.contains("--no-supervise") { return 1.1 }
    return 1.2
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
print(
    measuresCPU
        ? "CPU time of a whole run (first frame, then stdin's end), \(runs) runs each, interleaved (median · min · max, ms; ratio to the monolith)"
        : "cold start to first frame (and, where features start after it, to every feature ready), \(runs) runs each, interleaved (median · min · max, ms; ratio to the monolith)"
)
var load = [0.0, 0.0, 0.0]
_ = getloadavg(&load, 3)
print(
    "  every microapp start: its own probe cache, --no-build but the first; re-probed: \(rebuiltLibrary)'s entry cleared first"
)
let floor = median(samples[0])
for (index, command) in commands.enumerated() {
    let values = samples[index]
    let ratio = median(values) / floor
    let verdict = index == 0 ? "" : ratio <= target(of: command) ? "✓" : "✗"
    let name = command.name.padding(toLength: 40, withPad: " ", startingAt: 0)
    print(
        "  " + name
            + String(
                format: " %7.1f · %6.1f · %6.1f   %.2f× %@", median(values), values.min() ?? 0, values.max() ?? 0,
                ratio, verdict as NSString))
    guard command.startsLate && !measuresCPU else { continue }
    let ready = readySamples[index]
    print(
        "  " + "  … to every feature ready".padding(toLength: 40, withPad: " ", startingAt: 0)
            + String(
                format: " %7.1f · %6.1f · %6.1f   %.2f×", median(ready), ready.min() ?? 0, ready.max() ?? 0,
                median(ready) / floor))
}
print(String(format: "  load average after the run: %.1f %.1f %.1f", load[0], load[1], load[2]))
print("  targets (issue 23): from the repository ≤ 1.2×, as run ≤ 1.1×, re-probed and isolated ≤ 1.5× the monolith")
try? FileManager.default.removeItem(atPath: scratch)
