import Foundation
import MicroappCore
import MicroappPlatform
import MicroappSDK
import TestScratch
import Testing

/// Loads that may kill the process run in a child: the test runner started again with only
/// `isolatedChildLoad` selected and the paths in its environment. The child writes what it saw as JSON.
enum Isolated {
    /// Paths to load, joined by newlines; set only in the child.
    static let pathsVariable = "PLUGIN_LOADING_ISOLATED_PATHS"
    /// Where the child writes its `Outcome`.
    static let outputVariable = "PLUGIN_LOADING_ISOLATED_OUTPUT"

    /// What one `PluginSet.load` + resolve gave in the child.
    struct Outcome: Codable, Sendable {
        /// Paths of the images that loaded.
        var loaded: [String]
        /// Load problems.
        var problems: [Diagnostic]
        /// Features that would start.
        var startOrder: [String]
    }

    /// How the child ended.
    enum ChildResult: Sendable {
        /// It ran the load and wrote its outcome.
        case finished(Outcome)
        /// It was killed by `signal` (the loader crashed the process).
        case crashed(signal: Int32, output: String)
        /// It ended without an outcome for another reason.
        case failed(status: Int32, output: String)
    }

    /// Runs `PluginSet.load(paths)` and a resolve in a child test process, waiting for it on a thread of its own: a
    /// child test runner takes seconds to start on a loaded machine, and two tests waiting for theirs on Swift's
    /// cooperative pool (two threads here) stalled every other test's actors for as long (a whole run's Search tests
    /// timed out).
    static func load(_ paths: [String]) async throws -> ChildResult {
        try await BlockingWork.run { try loadBlocking(paths) }
    }

    private static func loadBlocking(_ paths: [String]) throws -> ChildResult {
        let output = (Paths.fixtures as NSString).appendingPathComponent("isolated-\(UUID().uuidString).json")
        var environment = Scratch.childEnvironment()
        environment[pathsVariable] = paths.joined(separator: "\n")
        environment[outputVariable] = output
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let child = try ChildProcess(
            [Paths.runner, "--testing-library", "swift-testing", "--filter", "isolatedChildLoad"],
            environment: environment, output: .capture, error: .output)
        // A generous limit: the child only loads a few libraries, but the machine may be busy.
        let ended = child.wait(timeout: .seconds(120))
        let text = ended.text
        if case .signalled(let signal) = ended.termination { return .crashed(signal: signal, output: text) }
        guard let data = FileManager.default.contents(atPath: output) else {
            return .failed(status: ended.termination.status, output: text)
        }
        return .finished(try JSONDecoder().decode(Outcome.self, from: data))
    }
}

@Suite("Loading a damaged library never takes the host down")
struct IsolatedLoadTests {
    /// The child half of `Isolated.load`, when the environment names the paths: loads them and writes the outcome. In
    /// the test process itself (no paths named) it loads the real plugins here, where nothing may crash: what a sound
    /// set gives in-process, beside what `childRoundTrip` sees it give in a child. It never skips.
    @Test(
        "a sound set loads and resolves in this process; in a child, the paths its environment names are loaded and the outcome written"
    )
    @MainActor
    func isolatedChildLoad() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let named = environment[Isolated.pathsVariable] else {
            let (report, resolution) = await Host.loadAndResolve(Paths.realPlugins)
            #expect(report.problems.isEmpty, "\(report.problems)")
            #expect(Set(report.images.map(\.path)) == Set(Paths.realPlugins))
            #expect(resolution.startOrder.contains("auth"))
            return
        }
        let paths = named.split(separator: "\n").map(String.init)
        let output = try #require(environment[Isolated.outputVariable])
        let (report, resolution) = await Host.loadAndResolve(paths)
        let outcome = Isolated.Outcome(
            loaded: report.images.map(\.path), problems: report.problems, startOrder: resolution.startOrder)
        try JSONEncoder().encode(outcome).write(to: URL(fileURLWithPath: output))
    }

    /// The first 4 KiB of a real library keep a valid ELF header (ET_DYN) and program headers whose segments
    /// reach far past the end of the file. The header check lets it through and `dlopen` maps the segments:
    /// touching a page past the end of the file raises SIGBUS inside the dynamic loader. A loader that checks
    /// the segments against the file size first refuses it with a message instead.
    @Test("a truncated copy of a real library (first 4 KiB) is refused with the reason, not a crash")
    func truncatedLibrary() async throws {
        let real = try #require(Paths.realPlugins.first { $0.hasSuffix("/libAuth.so") }, "libAuth.so not built")
        let bytes = try #require(FileManager.default.contents(atPath: real))
        let path = try FixtureBuilder.file("libTruncated.so", contents: bytes.prefix(4096))
        switch try await Isolated.load([path] + Paths.realPlugins) {
        case .crashed(let signal, let output):
            Issue.record(
                """
                loading the truncated copy killed the process with signal \(signal) (\(signal == SIGBUS ? "SIGBUS" : "?")) \
                instead of refusing it; child output:
                \(output.suffix(1500))
                """)
        case .failed(let status, let output):
            Issue.record("the child ended with status \(status) and no outcome:\n\(output.suffix(1500))")
        case .finished(let outcome):
            let problem = try #require(outcome.problems.first { $0.subject == path })
            #expect(outcome.problems.count == 1, "\(outcome.problems)")
            #expect(
                [Diagnostic.Code.notSharedObject, .loadFailed].contains(problem.code),
                "got \(problem.code): \(problem.reason)")
            let why = ["truncated", "end of file", "too short", "shorter", "4096"]
            #expect(why.contains { problem.reason.contains($0) }, "the reason does not say why: \(problem.reason)")
            #expect(Set(outcome.loaded) == Set(Paths.realPlugins), "the real plugins still load")
            #expect(outcome.startOrder.contains("auth"), "the real Auth still resolves")
        }
    }

    /// The isolation itself works: a sound set run in the child comes back with its outcome.
    @Test("the child process reports the outcome of a sound set")
    func childRoundTrip() async throws {
        guard case .finished(let outcome) = try await Isolated.load(Paths.realPlugins) else {
            Issue.record("the child did not report an outcome for the real plugins")
            return
        }
        #expect(outcome.problems.isEmpty, "\(outcome.problems)")
        #expect(Set(outcome.loaded) == Set(Paths.realPlugins))
        #expect(outcome.startOrder.contains("auth"))
    }
}
