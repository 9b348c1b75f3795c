// Host benchmark: what plugin screening costs at startup, and how fast the engine answers once features are loaded.
// It prints figures and ✓/✗ against the targets; it never fails on time (only when the work was not done right:
// a library not loaded, a lookup answered wrongly).
//
//     swift run -c release host-benchmark [startup | lookups] [--rounds R] [--plugins N] [--features N]
//
//   startup   cold start (empty probe cache: every library loaded first in a `microapp probe` child process) against
//             warm start (the same files, verdicts cached) and a plain load without screening, N = 50 plugins,
//             R = 5 rounds; every start runs in a fresh process of this executable (`load-child`), so nothing is
//             loaded before it. It builds the `microapp` executable the probes run first (`swift build --product`).
//   lookups   `Container.value(for:)`, `DependencyResolver.resolve` and `RouteTable.match` with N = 200 features;
//             sub-microsecond calls are timed in batches of 10 000 per sample.
//
// Without a subcommand it runs both. `load-child [--cache FILE --probe EXE] -- PATHS…` is the hidden child.
import BenchmarkSupport
import CommandLineSpec
import Foundation

let command = CommandSpec(
    "host-benchmark", summary: "what plugin screening costs at startup, and how fast the engine answers",
    operands: [.optional("SECTION")],
    options: [
        .value("--rounds", "R", help: "startup rounds (default 5)"),
        .value("--plugins", "N", help: "plugins in the startup set (default 50)"),
        .value("--features", "N", help: "features for the lookups (default 200)"),
    ],
    discussion: "SECTION is startup or lookups; without one it runs both.")

/// The start of one measured process: this executable run as `host-benchmark load-child … -- PATHS…`.
let childCommand = CommandSpec(
    "host-benchmark load-child", summary: "load PATHS in a fresh process (started by host-benchmark itself)",
    operands: [.repeatable("PATHS")],
    options: [
        .value("--cache", "FILE", help: "the probe cache to screen with"),
        .value("--probe", "EXE", help: "the microapp executable the probes run"),
    ])

@MainActor
func main() throws {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.first == "load-child" {
        let child = childCommand.parseOrExit(Array(arguments.dropFirst()))
        loadChild(paths: child.operands, cache: child.value("--cache"), probe: child.value("--probe"))
        return
    }
    let parsed = command.parseOrExit(arguments)
    let section = parsed.operands.first
    if let section, !["startup", "lookups"].contains(section) {
        FileHandle.standardError.write(
            Data("host-benchmark: no section '\(section)'\n  to fix: write startup or lookups\n".utf8))
        exit(1)
    }
    let option = { (name: String, fallback: Int) in positive(parsed, name, fallback) }
    if section == nil || section == "startup" {
        try runStartup(build: try BuildFolder.current(), count: option("--plugins", 50), rounds: option("--rounds", 5))
    }
    if section == nil { print("") }
    if section == nil || section == "lookups" {
        try runLookups(count: option("--features", 200))
    }
}

do {
    try main()
} catch {
    FileHandle.standardError.write(Data("host-benchmark: \(error)\n".utf8))
    exit(1)
}
