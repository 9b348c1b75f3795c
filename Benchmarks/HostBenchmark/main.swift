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
//   lookups   `Container.value(for:)`, `DependencyResolver.resolve` and `RouteTable.match` with N = 200 features.
//
// Without a subcommand it runs both. `load-child [--cache FILE --probe EXE] -- PATHS…` is the hidden child.
import BenchmarkSupport
import Foundation

/// The value after `name` as a positive integer, or `fallback`.
func option(_ name: String, _ fallback: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count,
        let value = Int(arguments[index + 1]), value > 0
    else { return fallback }
    return value
}

/// The value after `name`, if given.
func value(_ name: String, in arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

@MainActor
func main() throws {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.first == "load-child" {
        let separator = arguments.firstIndex(of: "--") ?? arguments.count
        let options = Array(arguments[..<separator])
        let paths = Array(arguments[min(separator + 1, arguments.count)...])
        loadChild(paths: paths, cache: value("--cache", in: options), probe: value("--probe", in: options))
        return
    }
    let section = arguments.first.flatMap { ["startup", "lookups"].contains($0) ? $0 : nil }
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
