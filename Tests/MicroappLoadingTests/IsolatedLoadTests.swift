import Foundation
import MicroappCore
import MicroappPlatform
import MicroappSDK
import TestPlugins
import TestScratch
import Testing

/// Loads that may kill the process run in a child: a Swift Testing exit test (the test runner started again for the
/// body alone), which prints what it saw as one JSON line on its standard output.
enum Isolated {
    /// What one `PluginSet.load` + resolve gave in the child.
    struct Outcome: Codable, Sendable {
        /// Paths of the images that loaded.
        var loaded: [String]
        /// Load problems.
        var problems: [Problem]
        /// Features that would start.
        var startOrder: [String]
    }

    /// The prefix of the child's outcome line.
    static let marker = "isolated-load-outcome: "

    /// Runs `PluginSet.load(paths)` and a resolve in a child process. The child must end normally: a crash (the
    /// loader killed by SIGBUS, say) or any other exit fails the test where this is called, naming how the child
    /// ended, and answers nil.
    static func load(_ paths: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> Outcome? {
        let result = await #expect(
            processExitsWith: .success, observing: [\.standardOutputContent],
            "loading \(paths.count) libraries in a child process", sourceLocation: sourceLocation
        ) { [paths] in
            let (report, resolution) = await Host.loadAndResolve(paths)
            let outcome = Outcome(
                loaded: report.images.map(\.path), problems: report.problems, startOrder: resolution.startOrder)
            print(Isolated.marker + String(decoding: try JSONEncoder().encode(outcome), as: UTF8.self))
        }
        guard let result else { return nil }
        let output = String(decoding: result.standardOutputContent, as: UTF8.self)
        let line = try #require(
            output.split(separator: "\n").last { $0.hasPrefix(marker) }, "the child wrote no outcome: \(output)",
            sourceLocation: sourceLocation)
        return try JSONDecoder().decode(Outcome.self, from: Data(line.dropFirst(marker.count).utf8))
    }
}

@Suite("Loading a damaged library never takes the host down")
struct IsolatedLoadTests {
    /// The first 4 KiB of a real library keep a valid ELF header (ET_DYN) and program headers whose segments
    /// reach far past the end of the file. The header check lets it through and `dlopen` maps the segments:
    /// touching a page past the end of the file raises SIGBUS inside the dynamic loader. A loader that checks
    /// the segments against the file size first refuses it with a message instead.
    @Test("a truncated copy of a real library (first 4 KiB) is refused with the reason, not a crash")
    func truncatedLibrary() async throws {
        let real = try #require(Paths.realPlugins.first { $0.hasSuffix("/libAuth.so") }, "libAuth.so not built")
        let bytes = try #require(FileManager.default.contents(atPath: real))
        let path = try FixtureBuilder.file("libTruncated.so", contents: bytes.prefix(4096))
        // A loader that crashes on it kills the child (SIGBUS) instead of refusing it: `load` fails the test then.
        let outcome = try #require(try await Isolated.load([path] + Paths.realPlugins))
        let problem = try #require(outcome.problems.first { $0.subject == path })
        #expect(outcome.problems.count == 1, "\(outcome.problems)")
        #expect(
            [Problem.Code.notSharedObject, .loadFailed].contains(problem.code),
            "got \(problem.code): \(problem.reason)")
        let why = ["truncated", "end of file", "too short", "shorter", "4096"]
        #expect(why.contains { problem.reason.contains($0) }, "the reason does not say why: \(problem.reason)")
        #expect(Set(outcome.loaded) == Set(Paths.realPlugins), "the real plugins still load")
        #expect(outcome.startOrder.contains("auth"), "the real Auth still resolves")
    }

    /// The isolation itself works: a sound set run in the child comes back with its outcome.
    @Test("the child process reports the outcome of a sound set")
    func childRoundTrip() async throws {
        let outcome = try #require(try await Isolated.load(Paths.realPlugins))
        #expect(outcome.problems.isEmpty, "\(outcome.problems)")
        #expect(Set(outcome.loaded) == Set(Paths.realPlugins))
        #expect(outcome.startOrder.contains("auth"))
    }
}
