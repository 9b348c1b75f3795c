import Foundation
import TestPlugins
import TestScratch
import Testing

/// The trait that keeps blocking test bodies off the cooperative pool does move them (see `OffThePool`).
@Suite("Tests marked off the pool run on threads of their own")
struct OffThePoolTests {
    @Test("a synchronous test marked .offThePool runs on an off-the-pool thread", .offThePool)
    func marked() {
        #expect(BlockingTestThreads.isCurrent)
        #expect(threadName().hasPrefix("off-the-pool"))
    }

    @Test("an unmarked one runs where Swift Testing puts it, on the cooperative pool")
    func unmarked() {
        #expect(!BlockingTestThreads.isCurrent)
        #expect(!threadName().hasPrefix("off-the-pool"))
    }
}

/// The attribute that starts at `start` on line `index` of `lines`, up to where its parentheses balance, and the index
/// of its last line.
private func balancedAttribute(_ lines: [String], from index: Int, at start: String.Index) -> (String, Int) {
    var attribute = String(lines[index][start...])
    var end = index
    while attribute.filter({ $0 == "(" }).count > attribute.filter({ $0 == ")" }).count, end + 1 < lines.count {
        end += 1
        attribute += "\n" + lines[end]
    }
    return (attribute, end)
}

/// The kernel's name of the thread running the caller (what gdb and ps show).
private func threadName() -> String {
    ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .newlines)
}

/// Every synchronous test of the targets whose tests wait on processes, builds, locks and hashes carries
/// `.offThePool`, so that a new one cannot quietly hold a pool thread again.
@Suite("Synchronous tests of the blocking targets are marked off the pool")
struct OffThePoolMarkTests {
    /// The test targets whose synchronous tests are marked (main-actor files aside: they run on the main actor).
    static let targets = [
        "CommandLineSpecTests", "DemoServicesTests", "MicroappCoreTests", "MicroappDevLoopTests", "MicroappDigestTests",
        "MicroappHostTests", "MicroappIsolationTests", "MicroappLoadingTests", "MicroappPlatformTests",
        "MicroappSDKTests", "MicroappShippingTests", "MicroappToolTests",
    ]

    /// The 1-based lines of the `@Test` attributes in `source` whose function is synchronous and whose attribute
    /// lacks `.offThePool`; none for a test on the main actor (its function, or the type it is declared in, marked
    /// `@MainActor`: once a whole file with `@MainActor` anywhere in it was passed, and ProbeTests' standby probes
    /// waited on the pool unmarked).
    static func unmarkedSynchronousTests(in source: String) -> [Int] {
        let lines = source.components(separatedBy: "\n")
        var found: [Int] = []
        var index = 0
        while index < lines.count {
            guard let start = lines[index].range(of: "@Test") else {
                index += 1
                continue
            }
            // The attribute runs until its parentheses balance; the signature until the body's brace.
            var (attribute, end) = balancedAttribute(lines, from: index, at: start.lowerBound)
            var signature = attribute
            while !signature.contains("{"), end + 1 < lines.count {
                end += 1
                signature += "\n" + lines[end]
            }
            let header = signature.prefix { $0 != "{" }
            if header.contains("func "), !header.contains(" async"), !attribute.contains(".offThePool"),
                !header.contains("@MainActor"), !Self.inMainActorType(lines, at: index)
            {
                found.append(index + 1)
            }
            index = end + 1
        }
        return found
    }

    /// Whether the top-level type around line `index` (the last one declared at the start of a line before it) has
    /// `@MainActor` among the lines since the declaration before it ended.
    static func inMainActorType(_ lines: [String], at index: Int) -> Bool {
        let declarations = ["struct ", "final class ", "class ", "enum ", "extension ", "actor "]
        guard
            let declaration = lines[..<index].lastIndex(where: { line in
                declarations.contains { line.hasPrefix($0) }
            })
        else { return false }
        let previousEnd = lines[..<declaration].lastIndex(of: "}") ?? -1
        return lines[(previousEnd + 1)...declaration].contains { $0.contains("@MainActor") }
    }

    @Test("every synchronous test of those targets is marked .offThePool", .offThePool)
    func everySynchronousTestIsMarked() throws {
        let found = try Paths.sourceLines(
            under: Self.targets.map { "Tests/\($0)" }, skipping: #filePath, Self.unmarkedSynchronousTests(in:))
        #expect(found.isEmpty, "synchronous tests on the cooperative pool; add .offThePool to their @Test: \(found)")
    }

    @Test(
        "the check finds an unmarked synchronous test, one-line or not, and passes a marked one, an async one and a main-actor one",
        .offThePool)
    func checkFindsUnmarked() {
        let unmarked = "struct S {\n    @Test(\"t\")\n    func t() throws {\n    }\n}"
        let inline = "struct S {\n    @Test func t() {\n    }\n}"
        let multiline =
            "struct S {\n    @Test(\n        \"t\",\n        arguments: [1])\n    func t(n: Int) {\n    }\n}"
        let marked = "struct S {\n    @Test(\"t\", .offThePool)\n    func t() throws {\n    }\n}"
        let markedInline = "struct S {\n    @Test(.offThePool) func t() {\n    }\n}"
        let asynchronous = "struct S {\n    @Test(\"t\")\n    func t() async throws {\n    }\n}"
        let mainActor = "@MainActor\nstruct S {\n    @Test(\"t\")\n    func t() throws {\n    }\n}"
        // A main-actor test elsewhere in the file exempts only itself.
        let mainActorBeside =
            "struct S {\n    @Test(\"a\")\n    @MainActor\n    func a() {\n    }\n}\n\nstruct T {\n    @Test(\"b\")\n    func b() {\n    }\n}"
        #expect(Self.unmarkedSynchronousTests(in: unmarked) == [2])
        #expect(Self.unmarkedSynchronousTests(in: inline) == [2])
        #expect(Self.unmarkedSynchronousTests(in: multiline) == [2])
        #expect(Self.unmarkedSynchronousTests(in: marked).isEmpty)
        #expect(Self.unmarkedSynchronousTests(in: markedInline).isEmpty)
        #expect(Self.unmarkedSynchronousTests(in: asynchronous).isEmpty)
        #expect(Self.unmarkedSynchronousTests(in: mainActor).isEmpty)
        #expect(Self.unmarkedSynchronousTests(in: mainActorBeside) == [9])
    }
}

/// Every end-to-end suite of `swift test` runs at high priority (`.promptResumes`): one left at the default priority
/// waits, at each resume after its app answered, behind the unit tests' queued work (seconds in a full run).
@Suite("End-to-end suites take .promptResumes")
struct PromptResumesMarkTests {
    /// The 1-based lines of the `@Suite` attributes in `source` that lack `.promptResumes`.
    static func unmarkedSuites(in source: String) -> [Int] {
        let lines = source.components(separatedBy: "\n")
        var found: [Int] = []
        var index = 0
        while index < lines.count {
            guard let start = lines[index].range(of: "@Suite"), lines[index].hasPrefix("@Suite") else {
                index += 1
                continue
            }
            let (attribute, end) = balancedAttribute(lines, from: index, at: start.lowerBound)
            if !attribute.contains(".promptResumes") { found.append(index + 1) }
            index = end + 1
        }
        return found
    }

    @Test("every suite of the end-to-end target's first step is marked .promptResumes", .offThePool)
    func everySuiteIsMarked() throws {
        let found = try Paths.sourceLines(under: ["Tests/EndToEndTests"], skipping: #filePath, Self.unmarkedSuites(in:))
            .filter { !$0.contains("/Packaging/") && !$0.contains("/Browser/") }
        #expect(
            found.isEmpty, "end-to-end suites at the default priority; add .promptResumes to their @Suite: \(found)")
    }

    @Test("the check finds an unmarked suite, one-line or not, and passes a marked one", .offThePool)
    func checkFindsUnmarked() {
        let unmarked = "@Suite(\"s\", .serialized)\nstruct S {}"
        let multiline = "@Suite(\n    \"s\",\n    .serialized)\nstruct S {}"
        let marked = "@Suite(\"s\", .serialized, .promptResumes)\nstruct S {}"
        let markedMultiline = "@Suite(\n    \"s\", .promptResumes\n)\nstruct S {}"
        #expect(Self.unmarkedSuites(in: unmarked) == [1])
        #expect(Self.unmarkedSuites(in: multiline) == [1])
        #expect(Self.unmarkedSuites(in: marked).isEmpty)
        #expect(Self.unmarkedSuites(in: markedMultiline).isEmpty)
    }
}
