import CommandLineSpec
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// Cold start to first frame: the plugin host (`microapp`, dlopen of every feature) against `monolith`, the same
// feature code linked statically (the floor). Both run `--ui json` with stdin closed and are timed from spawn to
// the first `"type":"frame"` line on stdout; runs alternate so machine noise hits both alike. Build in release:
//   swift build -c release && swift run -c release cold-start-benchmark [runs]
let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
let command = CommandSpec(
    "cold-start-benchmark", summary: "time to first frame: microapp against the statically linked monolith",
    operands: [.optional("RUNS")],
    discussion: "Runs each command RUNS times (default 25), alternating; build in release first.")
let operand = command.parseOrExit(Array(CommandLine.arguments.dropFirst())).operands.first
let runs = operand.map { Int($0) ?? 0 } ?? 25
guard runs > 0 else {
    FileHandle.standardError.write(Data("cold-start-benchmark: RUNS must be a number above 0\n".utf8))
    exit(1)
}
let data = FileManager.default.temporaryDirectory.appendingPathComponent("cold-start-\(getpid())").path
let microapp = [directory.appendingPathComponent("microapp").path, "--ui", "json", "--no-build", "--data", data]
let commands: [(name: String, arguments: [String])] = [
    ("monolith (static)", [directory.appendingPathComponent("monolith").path, "--ui", "json", "--data", data]),
    ("microapp, as run", microapp),
    ("microapp unsupervised", microapp + ["--no-supervise"]),
    ("microapp, no probe", microapp + ["--no-supervise", "--no-probe"]),
]
for command in commands where !FileManager.default.isExecutableFile(atPath: command.arguments[0]) {
    FileHandle.standardError.write(Data("missing \(command.arguments[0]); run `swift build -c release` first\n".utf8))
    exit(1)
}

/// Milliseconds from spawn to the first frame line, or nil if the program ended without one.
func timeToFirstFrame(_ arguments: [String]) -> Double? {
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
    defer { argv.forEach { free($0) } }
    let start = DispatchTime.now().uptimeNanoseconds
    var pid = pid_t()
    guard posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return nil }
    close(output[1])
    var seen = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 65536)
    var elapsed: Double?
    while elapsed == nil {
        let count = read(output[0], &buffer, buffer.count)
        if count <= 0 { break }
        seen += buffer[0..<count]
        if String(decoding: seen, as: UTF8.self).contains(#""type":"frame""#) {
            elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
        }
    }
    close(output[0])
    kill(pid, SIGKILL)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return elapsed
}

var samples: [[Double]] = Array(repeating: [], count: commands.count)
_ = commands.map { timeToFirstFrame($0.arguments) }  // warm the page cache and the probe cache once
for run in 0..<runs {
    // Rotate the order each run, so no command always follows the same one.
    for step in 0..<commands.count {
        let index = (run + step) % commands.count
        guard let milliseconds = timeToFirstFrame(commands[index].arguments) else {
            print("\(commands[index].name) ended without a frame")
            exit(1)
        }
        samples[index].append(milliseconds)
    }
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
print("cold start to first frame, \(runs) runs each, interleaved (median · min · max, ms; ratio to the monolith)")
let floor = median(samples[0])
for (index, command) in commands.enumerated() {
    let values = samples[index]
    let ratio = median(values) / floor
    let verdict = index == 0 ? "" : ratio <= 1.2 ? "✓" : "✗"
    print(
        String(
            format: "  %-22@ %7.1f · %6.1f · %6.1f   %.2f× %@", command.name as NSString, median(values),
            values.min() ?? 0, values.max() ?? 0, ratio, verdict as NSString))
}
print("  target: plugin host ≤ 1.2× the monolith")
try? FileManager.default.removeItem(atPath: data)
