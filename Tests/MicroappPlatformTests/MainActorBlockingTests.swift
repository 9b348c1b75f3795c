import Foundation
import TestPlugins
import Testing

/// Every `@MainActor` test of the process shares one main actor: a main-actor suite that runs a compiler or waits
/// for a child process on it stalls them all (a full run's Search tests timed out while ResolverRefusalTests ran
/// `cc` there). Such a suite hands blocking work to a thread of its own: `fixture { }`, `BlockingWork.run { }` or
/// `offThePool { }`.
@Suite("Main-actor suites never block the main actor on a compiler or a child process")
struct MainActorBlockingTests {
    /// Calls that block their thread for as long as a compiler or a child process runs.
    static let blockingCalls = [
        "waitUntilExit", "readDataToEndOfFile", "usleep(", "Thread.sleep", "FixtureBuilder.", "Manifests.plugin(",
        " PluginSet.load(",
        "M.plugin(", "try Self.plugin(", "ProbeTests.plugin(",
    ]

    /// What hands work to a thread of its own; a blocking call on its line or the two after it is off the actor.
    static let offTheActor = ["fixture {", "BlockingWork.run", "offThePool {"]

    /// The 1-based numbers of the lines of `source` that block the main actor: blocking calls in a file with a
    /// main-actor suite (`@MainActor` next to `@Suite` or on a type), or in the body of a function marked
    /// `@MainActor`, unless the line itself or one of the two before it hands them off.
    static func blockingLines(in source: String) -> [Int] {
        let raw = source.components(separatedBy: "\n")
        let lines = raw.map { $0.trimmingCharacters(in: .whitespaces) }
        let typeStarts = ["@Suite", "struct ", "final class ", "class ", "enum "]
        let isMainActorSuite = lines.indices.contains { index in
            lines[index] == "@MainActor"
                && ((index > 0 && lines[index - 1].hasPrefix("@Suite"))
                    || (index + 1 < lines.count && typeStarts.contains(where: lines[index + 1].hasPrefix)))
        }
        let candidates = isMainActorSuite ? Set(lines.indices) : mainActorFunctionBodies(raw, lines)
        return lines.indices.filter { index in
            guard candidates.contains(index), blockingCalls.contains(where: lines[index].contains) else { return false }
            let window = lines[max(0, index - 2)...index]
            return !window.contains { line in offTheActor.contains(where: line.contains) }
        }.map { $0 + 1 }
    }

    /// The indices of the lines inside functions marked `@MainActor` (on the line of `func` or the line before):
    /// from the `func` line to the closing brace at its indentation.
    private static func mainActorFunctionBodies(_ raw: [String], _ lines: [String]) -> Set<Int> {
        var inside: Set<Int> = []
        for index in lines.indices {
            let marked =
                lines[index].hasPrefix("@MainActor func")
                || (lines[index].contains("func ") && index > 0 && lines[index - 1] == "@MainActor")
            guard marked else { continue }
            let indentation = raw[index].prefix { $0 == " " }.count
            var end = index + 1
            while end < raw.count, !(lines[end] == "}" && raw[end].prefix { $0 == " " }.count == indentation) {
                end += 1
            }
            inside.formUnion(index..<min(end + 1, raw.count))
        }
        return inside
    }

    @Test("no test source calls a compiler or waits for a process on the main actor")
    func testSourcesHandBlockingWorkOff() throws {
        let plugins = try FileManager.default.contentsOfDirectory(atPath: Paths.repository.path + "/Plugins")
        let roots = ["Tests"] + plugins.map { "Plugins/\($0)/Tests" }
        let found = try Paths.sourceLines(under: roots, skipping: #filePath, Self.blockingLines(in:))
        #expect(
            found.isEmpty, "blocking calls on the main actor; hand them to fixture { } or BlockingWork.run: \(found)")
    }

    @Test(
        "a blocking call directly in a main-actor suite or a @MainActor function is found; one handed to fixture { }, or in a function that is not main-actor, is not"
    )
    func checkFindsDirectCalls() {
        let direct =
            "@MainActor\nstruct S {\n    func t() throws {\n        let p = try M.plugin(\"x\")\n"
            + "    }\n}"
        let handedOff =
            "@MainActor\nstruct S {\n    func t() async throws {\n        let p = try await fixture {\n"
            + "            try M.plugin(\"x\")\n        }\n    }\n}"
        let markedAbove =
            "struct S {\n    @MainActor\n    func t() throws {\n        let p = try M.plugin(\"x\")\n    }\n}"
        let mainActorFunction =
            "struct S {\n    @MainActor func t() throws {\n        shell.waitUntilExit()\n    }\n\n"
            + "    func u() {\n        shell.waitUntilExit()\n    }\n}"
        #expect(Self.blockingLines(in: direct) == [4])
        #expect(Self.blockingLines(in: handedOff).isEmpty)
        #expect(Self.blockingLines(in: markedAbove) == [4])
        #expect(Self.blockingLines(in: mainActorFunction) == [3])
    }
}
