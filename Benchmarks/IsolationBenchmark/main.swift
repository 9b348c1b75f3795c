import BenchmarkSupport
import CommandLineSpec
import Foundation
import MicroappPlatform

#if canImport(Glibc)
    import Glibc
#endif

// What isolating a feature costs, measured side by side in one run (this machine is shared and noisy):
// - starting a child that runs `microapp --version`: posix_spawn of the executable against a fork of the zygote,
//   the template process that has the Swift runtime, Foundation and the SDK mapped already;
// - an isolated feature's start, from asking for its child to its handshake (the library loaded and registered in the
//   sandboxed child), forked from the zygote or started afresh (solo's way), each with and without the child's own
//   namespaces (ProcessNamespaces: PID, mount and user namespace, a fresh /proc; `MICROAPP_NAMESPACES=0` turns them off);
// - an action's round trip to the frame it leads to, Characters run alone on its mocks (`solo characters --ui json`)
//   in the app's process against in a child of its own, the two apps driven in turn: `back` from a detail to the
//   list's drawn screen, and `select` of a row to the detail's drawn screen (which calls the feature's mock service).
// Build in release:
//   swift build -c release && swift run -c release isolation-benchmark [runs]
let command = CommandSpec(
    "isolation-benchmark", summary: "what running a feature in its own process costs",
    operands: [.optional("RUNS")],
    discussion: "Runs each measurement RUNS times (default 50), alternating; build in release first.")
let runs = runsOperand(of: command, fallback: 50)
let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
let executable = directory.appendingPathComponent("microapp").path
guard FileManager.default.isExecutableFile(atPath: executable) else {
    FileHandle.standardError.write(Data("missing \(executable); run `swift build -c release` first\n".utf8))
    exit(1)
}
let environment = ChildLaunch.environment(.process, backtrace: "enable=no")

/// Reads `descriptor` to its end and closes it.
func drain(_ descriptor: Int32) {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while read(descriptor, &buffer, buffer.count) > 0 {}
    close(descriptor)
}

func timeSpawn() throws -> Double {
    let start = ContinuousClock.now
    let outcome = try ChildProcess([executable, "--version"], environment: environment).wait()
    guard outcome.termination == .exited(0) else { throw SystemCallError(call: "spawn", errno: EIO) }
    return seconds(ContinuousClock.now - start)
}

func timeFork(_ zygote: Zygote) throws -> Double {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { throw SystemCallError(call: "pipe", errno: errno) }
    let null = open("/dev/null", O_RDWR)
    defer { close(null) }
    let start = ContinuousClock.now
    let child = try zygote.fork(["--version"], input: null, output: ends[1], error: null)
    close(ends[1])
    drain(ends[0])
    guard child.wait() == .exited(0) else { throw SystemCallError(call: "fork", errno: EIO) }
    return seconds(ContinuousClock.now - start)
}

/// Seconds from asking for a feature-host child of `library` to its handshake (the first bytes on its socket: the
/// library is loaded and registered under its sandbox): a fork of `zygote`, or with nil a process started afresh in
/// `environment`. The child is ended and reaped afterwards, untimed.
func timeFeatureStart(_ zygote: Zygote?, environment: [String: String], library: String) throws -> Double {
    let scratch = NSTemporaryDirectory() + "/isolation-benchmark-\(getpid())"
    try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    var socket: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &socket) == 0 else {
        throw SystemCallError(call: "socketpair", errno: errno)
    }
    let null = open("/dev/null", O_RDWR | O_CLOEXEC)
    defer { close(null) }
    let arguments = ["feature-host", "--library", library, "--scratch", scratch]
    let start = ContinuousClock.now
    let wait: () -> ChildProcess.Termination
    if let zygote {
        let child = try zygote.fork(arguments, input: socket[1], output: null, error: null)
        wait = { child.wait() }
    } else {
        let child = try ChildProcess(
            [executable] + arguments, environment: environment, directory: scratch, input: .descriptor(socket[1]),
            output: .null, error: .null)
        wait = { child.wait().termination }
    }
    close(socket[1])
    var header = [UInt8](repeating: 0, count: 4)
    let count = read(socket[0], &header, 4)
    let elapsed = seconds(ContinuousClock.now - start)
    close(socket[0])
    guard count == 4, wait() == .exited(0) else { throw SystemCallError(call: "feature-host handshake", errno: EIO) }
    return elapsed
}

/// The resident and proportional set sizes of `pid` in KiB (`/proc/PID/smaps_rollup`); 0 for what cannot be read.
func memory(of pid: Int32) -> (rss: Int, pss: Int) {
    let text = (try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8)) ?? ""
    func field(_ name: String) -> Int {
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
    return (field("Rss"), field("Pss"))
}

/// One `microapp solo characters --ui json` process, driven line by line through pipes.
final class DrivenApp {
    let name: String
    private let pid: pid_t
    private let input: Int32
    private let output: Int32
    private var pending: [UInt8] = []

    init(name: String, isolation: String) throws {
        self.name = name
        var toApp: [Int32] = [-1, -1]
        var fromApp: [Int32] = [-1, -1]
        guard pipe(&toApp) == 0, pipe(&fromApp) == 0 else { throw SystemCallError(call: "pipe", errno: errno) }
        // Close-on-exec, so the app started next does not hold this one's stdin open (it would never see EOF).
        for descriptor in toApp + fromApp { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toApp[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromApp[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = [executable, "solo", "characters", "--ui", "json", "--no-build", "--isolation", isolation]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let failure = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(toApp[0])
        close(fromApp[1])
        guard failure == 0 else { throw SystemCallError(call: "posix_spawn", path: executable, errno: failure) }
        (self.pid, input, output) = (pid, toApp[1], fromApp[0])
    }

    /// Sends one event line.
    func send(_ event: String) {
        let line = Array((event + "\n").utf8)
        _ = line.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
    }

    /// Reads frames until one on a route starting with `route` shows its content (state `view`); false at the end.
    func waitForView(_ route: String) -> Bool {
        while let line = nextLine() {
            guard let frame = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                frame["type"] as? String == "frame", (frame["route"] as? String)?.hasPrefix(route) == true,
                let screen = frame["screen"] as? [String: Any], let state = screen["state"] as? [String: Any],
                state["type"] as? String == "view"
            else { continue }
            return true
        }
        return false
    }

    /// Milliseconds from sending `event` to the drawn screen of `route`.
    func roundTrip(_ event: String, to route: String) throws -> Double {
        let start = ContinuousClock.now
        send(event)
        guard waitForView(route) else { throw SystemCallError(call: "\(name): no \(route) frame", errno: EIO) }
        return seconds(ContinuousClock.now - start)
    }

    /// The app process and every process below it (the zygote, the feature's child), each with its command line.
    func processTree() -> [(pid: Int32, command: String)] {
        var found: [(pid: Int32, command: String)] = []
        var queue = [pid]
        while let next = queue.first {
            queue.removeFirst()
            let command = (FileManager.default.contents(atPath: "/proc/\(next)/cmdline") ?? Data())
                .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }.dropFirst().joined(separator: " ")
            found.append((next, command))
            let children = (try? String(contentsOfFile: "/proc/\(next)/task/\(next)/children", encoding: .utf8)) ?? ""
            queue += children.split(separator: " ").compactMap { Int32($0) }
        }
        return found
    }

    /// Ends the app (EOF) and reaps it.
    func end() {
        close(input)
        while nextLine() != nil {}
        close(output)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    private func nextLine() -> String? {
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            pending += chunk[..<count]
        }
    }
}

/// Each app's `back` and `select` round trips, the apps taking turns.
func roundTrips(_ apps: [DrivenApp], runs: Int) throws -> [[String: [Double]]] {
    var samples = apps.map { _ in ["back": [Double](), "select": [Double]()] }
    for app in apps where !app.waitForView("characters://list") {
        throw SystemCallError(call: "\(app.name): no first frame", errno: EIO)
    }
    let select = #"{"type":"select","id":"characters","index":0}"#
    for run in 0..<(runs + 1) {
        for step in apps.indices {
            let index = (run + step) % apps.count
            let opened = try apps[index].roundTrip(select, to: "characters://detail")
            let back = try apps[index].roundTrip(#"{"type":"back"}"#, to: "characters://list")
            // The first of each is a warm-up (first use of the detail route, its code paged in).
            if run > 0 {
                samples[index]["select"]!.append(opened)
                samples[index]["back"]!.append(back)
            }
        }
    }
    return samples
}

do {
    let zygote = try Zygote.start(executable: executable, environment: environment)
    defer { zygote.stop() }
    var spawned: [Double] = []
    var forked: [Double] = []
    _ = try timeSpawn()
    _ = try timeFork(zygote)
    for _ in 0..<runs {
        spawned.append(try timeSpawn())
        forked.append(try timeFork(zygote))
    }
    print("child running `microapp --version` to its end, \(runs) runs each, alternating (ms)")
    print("  \(padRight("", 28)) \(pad("p50", 8)) \(pad("p90", 8))")
    for (name, values) in [("posix_spawn of the binary", spawned), ("fork of the zygote", forked)] {
        print(
            "  \(padRight(name, 28)) \(fixed(median(values) * 1000, 2, width: 8))"
                + " \(fixed(percentile(values, 0.9) * 1000, 2, width: 8))")
    }
    print("  spawn / fork at p50: \(fixed(median(spawned) / median(forked), 1))×")

    // An isolated start with and without the child's namespaces, the four ways in turn.
    let library = directory.appendingPathComponent("libCharacters.so").path
    let withNamespaces = ChildLaunch.featureEnvironment(.process)
    var withoutNamespaces = withNamespaces
    withoutNamespaces[ProcessNamespaces.variable] = "0"
    let zygotes = [
        try Zygote.start(executable: executable, environment: withNamespaces),
        try Zygote.start(executable: executable, environment: withoutNamespaces),
    ]
    defer { zygotes.forEach { $0.stop() } }
    let ways: [(name: String, zygote: Zygote?, environment: [String: String])] = [
        ("fork of the zygote, namespaces", zygotes[0], withNamespaces),
        ("fork of the zygote, none", zygotes[1], withoutNamespaces),
        ("started afresh, namespaces", nil, withNamespaces),
        ("started afresh, none", nil, withoutNamespaces),
    ]
    var starts = ways.map { _ in [Double]() }
    for run in 0...runs {
        for (index, way) in ways.enumerated() {
            let elapsed = try timeFeatureStart(way.zygote, environment: way.environment, library: library)
            if run > 0 { starts[index].append(elapsed) }
        }
    }
    print("")
    print("isolated start of Characters to its handshake, \(runs) runs each, the four in turn (ms)")
    print("  \(padRight("", 32)) \(pad("p50", 8)) \(pad("p90", 8))")
    for (way, values) in zip(ways, starts) {
        print(
            "  \(padRight(way.name, 32)) \(fixed(median(values) * 1000, 2, width: 8))"
                + " \(fixed(percentile(values, 0.9) * 1000, 2, width: 8))")
    }
    for (label, with, without) in [("forked", 0, 1), ("started afresh", 2, 3)] {
        let added = (median(starts[with]) - median(starts[without])) * 1000
        print(
            "  \(label): namespaces add \(fixed(added, 2)) ms at p50 (\(fixed(median(starts[with]) / median(starts[without]), 2))×)"
        )
    }

    let apps = [
        try DrivenApp(name: "in-process", isolation: "none"), try DrivenApp(name: "isolated", isolation: "process"),
    ]
    defer { apps.forEach { $0.end() } }
    let trips = try roundTrips(apps, runs: runs)
    print("")
    print("action → its drawn frame, Characters alone on its mocks, \(runs) runs each, apps in turn (ms)")
    print("  \(padRight("", 44)) \(pad("p50", 8)) \(pad("p99", 8))")
    for (event, label) in [("back", "back → the list"), ("select", "select → the detail (mock call)")] {
        for (app, samples) in zip(apps, trips) {
            let values = samples[event]!
            print(
                "  \(padRight("\(label), \(app.name)", 44)) \(fixed(median(values) * 1000, 2, width: 8))"
                    + " \(fixed(percentile(values, 0.99) * 1000, 2, width: 8))")
        }
        let added = (median(trips[1][event]!) - median(trips[0][event]!)) * 1000
        print("  \(label): isolated adds \(fixed(added, 2)) ms at p50 \(added <= 1 ? "✓" : "✗") (goal ≤ 1 ms)")
    }
    print("")
    print(
        "memory once the round trips ran, KiB: resident (RSS) and proportional (PSS: shared pages split among sharers)")
    for app in apps {
        for process in app.processTree() {
            let role =
                process.command.hasPrefix("feature-host")
                ? "the feature's child"
                : process.command.hasPrefix("zygote") ? "the zygote" : "the app"
            let (rss, pss) = memory(of: process.pid)
            print("  \(padRight("\(app.name): \(role)", 44)) RSS \(pad(String(rss), 7))  PSS \(pad(String(pss), 7))")
        }
    }
} catch {
    FileHandle.standardError.write(Data("isolation-benchmark: \(error)\n".utf8))
    exit(1)
}
