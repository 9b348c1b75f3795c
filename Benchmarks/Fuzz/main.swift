// Seeded random-input driver for what Microapps parses from untrusted plugins: `ManifestCoding.decode` (random bytes,
// mutated valid manifests: truncation, byte flips, huge numbers, deep nesting, Unicode, duplicate keys, size) and
// `RoutePattern` / `RouteTable` (patterns and URLs from an alphabet rich in `/ { } :` and Unicode), and
// `FeatureWire.decode` (frame bodies an isolated feature's child could send: random, tokens, mutated messages). Every input is
// checked against the invariants in Invariants.swift; a crash names the input that caused it.
//
//     swift run -c release microapp-fuzz [manifest | routes | frames] [--seed S] [--count N]
//     swift run -c release microapp-fuzz manifest|routes|frames --seed S --index I [--minimize-crash]
//
// Defaults: both targets, seed 1, 100 000 inputs each. With --index only that input runs and is printed (to
// reproduce a crash the driver reported); --minimize-crash shrinks a crashing input in child processes. Violations
// are grouped by kind; the smallest input of each kind is minimized and printed as Swift source. Exit status: 0
// clean, 1 violations found (a crash ends the process by its signal). `scripts/fuzz` runs this and the libFuzzer
// harness.
import BenchmarkSupport
import CommandLineSpec
import Foundation
import MicroappCore
import MicroappSDK

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a line to stderr.
func note(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

let command = CommandSpec(
    "microapp-fuzz", summary: "feed generated inputs to the host's parsers and check their invariants",
    operands: [.optional("TARGET")],
    options: [
        .value("--seed", "N", help: "the generators' seed (default 1)"),
        .value("--count", "N", help: "inputs per target (default 100000)"),
        .value("--index", "I", help: "check only input number I of TARGET (printed as Swift)"),
        .flag("--minimize-crash", help: "with --index: shrink that input while it still crashes a child process"),
    ],
    discussion: "TARGET is one of \(Target.allCases.map(\.rawValue).joined(separator: ", ")); without one, all of them."
)

/// The child of --minimize-crash: `microapp-fuzz check-file FILE` checks one stored input.
let checkFileCommand = CommandSpec(
    "microapp-fuzz check-file", summary: "check one stored input (started by --minimize-crash)",
    operands: [.required("FILE")])

/// The input number `index` of `target` for `seed`.
func input(_ target: Target, seed: UInt64, index: Int) -> FuzzInput {
    var generators = Generators(seed: seed, index: index)
    switch target {
    case .manifest: return .manifest(generators.manifestInput())
    case .routes: return .routes(generators.routeInput())
    case .frames: return .frames(generators.protocolInput())
    }
}

/// Counts that show the inputs reached past the first check (not only refusals).
struct Coverage {
    var accepted = 0
    var parts = 0
    var bytes = 0
    var slowest: Duration = .zero
    var slowestIndex = 0
}

/// Runs `count` inputs of `target`; prints a summary and each kind of violation with a minimized example.
func fuzz(_ target: Target, seed: UInt64, count: Int) -> Bool {
    var findings: [String: Finding] = [:]
    var coverage = Coverage()
    let clock = ContinuousClock()
    let start = clock.now
    for index in 0..<count {
        markCurrent(target, index: index, seed: seed)
        let next = input(target, seed: seed, index: index)
        let began = clock.now
        let violations = next.check()
        let took = clock.now - began
        if took > coverage.slowest {
            coverage.slowest = took
            coverage.slowestIndex = index
        }
        switch next {
        case .manifest(let text):
            coverage.bytes += text.utf8.count
            coverage.parts += 1
            if (try? ManifestCoding.decode(text)) != nil { coverage.accepted += 1 }
        case .frames(let text):
            coverage.bytes += text.utf8.count
            coverage.parts += 1
            if (try? FeatureWire.decode(body: Array(text.utf8))) != nil { coverage.accepted += 1 }
        case .routes(let routes):
            coverage.parts += routes.patterns.count
            coverage.accepted += routes.patterns.filter { (try? RoutePattern($0)) != nil }.count
        }
        for violation in Set(violations) {
            var finding = findings[violation.kind] ?? Finding(input: next, detail: violation.detail, index: index)
            finding.count += 1
            if next.size < finding.input.size {
                (finding.input, finding.detail, finding.index) = (next, violation.detail, index)
            }
            findings[violation.kind] = finding
        }
        if (index + 1) % 20_000 == 0 { note("  \(target.rawValue): \(index + 1) / \(count)") }
    }
    let elapsed = seconds(clock.now - start)
    let what =
        target != .routes
        ? "\(coverage.accepted) decoded, \(coverage.parts - coverage.accepted) refused, \(coverage.bytes / max(1, count)) bytes on average"
        : "\(coverage.parts) patterns, \(coverage.accepted) parsed"
    print(
        "\(padRight(target.rawValue, 9)) \(count) inputs in \(fixed(elapsed, 1)) s: \(what);",
        "slowest input #\(coverage.slowestIndex) took \(fixed(seconds(coverage.slowest) * 1e3, 1)) ms;",
        findings.isEmpty ? "no violations" : "\(findings.count) kinds of violation")
    for (kind, finding) in findings.sorted(by: { $0.key < $1.key }) {
        let minimal = finding.input.minimized { candidate in candidate.check().contains { $0.kind == kind } }
        let detail = minimal.check().first { $0.kind == kind }?.detail ?? finding.detail
        print("  ✗ \(kind): \(finding.count) inputs (first smallest: #\(finding.index))")
        print("    minimized: \(minimal.swiftLiteral)")
        print("    detail:    \(detail)")
    }
    return findings.isEmpty
}

/// True if running `candidate` in a child process of this executable kills it with a signal.
func crashes(_ candidate: FuzzInput) -> Bool {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("microapp-fuzz-\(getpid()).json")
    defer { try? FileManager.default.removeItem(at: file) }
    guard (try? JSONEncoder().encode(candidate).write(to: file)) != nil else { return false }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
    process.arguments = ["check-file", file.path]
    process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationReason == .uncaughtSignal
}

func main() -> Int32 {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.first == "check-file" {
        let file = checkFileCommand.parseOrExit(Array(arguments.dropFirst())).operands[0]
        guard let data = FileManager.default.contents(atPath: file),
            let stored = try? JSONDecoder().decode(FuzzInput.self, from: data)
        else { return 2 }
        return stored.check().isEmpty ? 0 : 1
    }
    let parsed = command.parseOrExit(arguments)
    let named = parsed.operands.first
    guard let targets = named.map({ Target(rawValue: $0).map { [$0] } }) ?? Target.allCases else {
        note("microapp-fuzz: no target '\(named ?? "")'\n  to fix: use one of \(Target.allCases.map(\.rawValue))")
        return 1
    }
    let seed = parsed.value("--seed").flatMap(UInt64.init) ?? 1
    let count = positive(parsed, "--count", 100_000)
    installCrashReporter()
    if let index = parsed.value("--index").flatMap(Int.init), let target = targets.first {
        let chosen = input(target, seed: seed, index: index)
        print("\(target.rawValue) input #\(index) (seed \(seed)): \(chosen.swiftLiteral)")
        if parsed.flag("--minimize-crash") {
            guard crashes(chosen) else {
                print("it does not crash in a child process")
                return 1
            }
            print("minimized crash: \(chosen.minimized(while: crashes).swiftLiteral)")
            return 0
        }
        markCurrent(target, index: index, seed: seed)
        let violations = chosen.check()
        for violation in violations { print("  ✗ \(violation.kind): \(violation.detail)") }
        return violations.isEmpty ? 0 : 1
    }
    print("microapp-fuzz: seed \(seed), \(count) inputs per target")
    var clean = true
    for target in targets where !fuzz(target, seed: seed, count: count) { clean = false }
    return clean ? 0 : 1
}

exit(main())
