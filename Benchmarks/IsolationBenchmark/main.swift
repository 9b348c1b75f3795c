import BenchmarkSupport
import CommandLineSpec
import Foundation
import MicroappPlatform

#if canImport(Glibc)
    import Glibc
#endif

// What isolating a feature costs, measured side by side in one run (this machine is shared and noisy):
// - starting a child that runs `microapp --version`: posix_spawn of the executable against a fork of the zygote,
//   the template process that has the Swift runtime, Foundation and the SDK mapped already.
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
let environment = ChildLaunch.environment(backtrace: "enable=no")

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
} catch {
    FileHandle.standardError.write(Data("isolation-benchmark: \(error)\n".utf8))
    exit(1)
}
