// Builds shared by the suites of one test process: the hook for any test that needs a fixture made by a slow build
// (a SwiftPM package outside the repository, a corpus of plugins compiled with swiftc or cc).
//
// Where the CPU of the tests goes (user + system seconds of each suite run alone, on this two-core machine while other
// builds ran): the suites that build a fixture with SwiftPM or from source took most of it — AppHostTests ~58 (a clean
// SwiftPM build of the engine under MicroappTool), EditSourceHotSwapTests ~42, OutsidePackageTests ~40, ShadowBuildTests
// ~16, SDKEvolutionTests ~12, FeatureLifecycleTests (a repository copy's builds) — and they are the packaging suites,
// in Tests/<Target>/Packaging, run by `scripts/test-packaging`, not by `swift test`. What `swift test` runs is about
// 50 CPU-s in all; no suite of it takes more than ~7 (HostileCorpusTests, SandboxTests, the in-process HotSwapTests).
// With two cores the phase can be no shorter than half its CPU seconds, so what helps is doing less work, not more
// at once:
//   - Build a fixture once per process and share it: ask `SharedBuilds.shared.value(of:build:)` with a key that
//     names what is built ("app-host", "hostile-plugins"); the first caller builds, every later or concurrent caller
//     awaits that same build. Two suites that need the same package must use the same key.
//   - Build only what the claim needs: a test about how a feature behaves compiles one module with swiftc against the
//     SDK beside the runner (`compilePlugin` in EndToEndTests, `Swappy`, `FixtureBuilder`); a clean SwiftPM build is
//     kept only where the claim is about SwiftPM (a package outside the repository builds and runs).
//   - A SwiftPM build whose claim is not about debugging or indexing skips both (`SwiftPM.fixtureOptions` in
//     EndToEndTests): about a fifth less CPU.
//   - Run blocking work off the cooperative pool (BlockingWork.run / offThePool): the pool has two threads here.

/// Fixtures built once per test process and shared by every suite that asks for the same key.
public actor SharedBuilds {
    /// The one cache of this test process.
    public static let shared = SharedBuilds()

    private var builds: [String: Task<any Sendable, any Error>] = [:]

    /// The fixture named `key`: built by `build` the first time it is asked for, the same value (or the same error)
    /// for every later or concurrent caller. A build that fails is not tried again: its error names the reason.
    public func value<T: Sendable>(of key: String, build: @escaping @Sendable () async throws -> T) async throws -> T {
        let task =
            builds[key]
            ?? {
                let task = Task<any Sendable, any Error> { try await build() }
                builds[key] = task
                return task
            }()
        guard let value = try await task.value as? T else {
            throw SharedBuildError(key: key, expected: "\(T.self)")
        }
        return value
    }
}

/// Two callers asked for the same key expecting values of different types.
public struct SharedBuildError: Error, CustomStringConvertible {
    /// The key asked for.
    public let key: String
    /// The type the second caller expected.
    public let expected: String

    /// What happened and the fix.
    public var description: String {
        "the shared build '\(key)' is not a \(expected): two suites use the key for different things; "
            + "to fix: give each fixture a key of its own"
    }
}
