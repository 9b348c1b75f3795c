import Foundation
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
        "M.plugin(",
    ]

    /// What hands work to a thread of its own; a blocking call on its line or the two after it is off the actor.
    static let offTheActor = ["fixture {", "BlockingWork.run", "offThePool {"]

    /// The 1-based numbers of the lines of `source` that block the main actor: blocking calls in a file with a
    /// main-actor suite (`@MainActor` next to `@Suite` or on a type), unless the line itself or one of the two before
    /// it hands them off.
    static func blockingLines(in source: String) -> [Int] {
        let lines = source.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let typeStarts = ["@Suite", "struct ", "final class ", "class ", "enum "]
        let isMainActorSuite = lines.indices.contains { index in
            lines[index] == "@MainActor"
                && ((index > 0 && lines[index - 1].hasPrefix("@Suite"))
                    || (index + 1 < lines.count && typeStarts.contains(where: lines[index + 1].hasPrefix)))
        }
        guard isMainActorSuite else { return [] }
        return lines.indices.filter { index in
            guard blockingCalls.contains(where: lines[index].contains) else { return false }
            let window = lines[max(0, index - 2)...index]
            return !window.contains { line in offTheActor.contains(where: line.contains) }
        }.map { $0 + 1 }
    }

    @Test("no test source calls a compiler or waits for a process on the main actor")
    func testSourcesHandBlockingWorkOff() throws {
        let plugins = try FileManager.default.contentsOfDirectory(atPath: Paths.repository.path + "/Plugins")
        let roots = ["Tests"] + plugins.map { "Plugins/\($0)/Tests" }
        var found: [String] = []
        for root in roots {
            let folder = Paths.repository.appendingPathComponent(root)
            guard let files = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let path = folder.appendingPathComponent(file).path
                guard path != #filePath else { continue }
                let source = try String(contentsOfFile: path, encoding: .utf8)
                found += Self.blockingLines(in: source).map { "\(root)/\(file):\($0)" }
            }
        }
        #expect(
            found.isEmpty, "blocking calls on the main actor; hand them to fixture { } or BlockingWork.run: \(found)")
    }

    @Test(
        "a fixture compiled directly in a main-actor suite is found; one handed to fixture { }, or in a suite that is not main-actor, is not"
    )
    func checkFindsDirectCalls() {
        let direct =
            "@MainActor\nstruct S {\n    func t() throws {\n        let p = try M.plugin(\"x\")\n"
            + "    }\n}"
        let handedOff =
            "@MainActor\nstruct S {\n    func t() async throws {\n        let p = try await fixture {\n"
            + "            try M.plugin(\"x\")\n        }\n    }\n}"
        let notMainActor =
            "struct S {\n    @MainActor\n    func t() throws {\n        let p = try M.plugin(\"x\")\n    }\n}"
        #expect(Self.blockingLines(in: direct) == [4])
        #expect(Self.blockingLines(in: handedOff).isEmpty)
        #expect(Self.blockingLines(in: notMainActor).isEmpty)
    }
}
