import TestScratch
import Testing

@testable import MicroappDevLoop

/// The rule that a build of older bytes never lands after a newer save.
@Suite("Only the newest save's build lands")
struct NewestBuildTests {
    /// Sources whose bytes a test changes between the start and the end of a build.
    private final class Sources {
        var digests = ["A.swift": "1"]
    }

    @Test(
        "a build whose sources did not change while it ran is the outcome, with the digests it was made of", .offThePool
    )
    func quietBuild() {
        let sources = Sources()
        var builds = 0
        let outcome = NewestBuild.run(digests: { sources.digests }) {
            builds += 1
            return "build \(builds)"
        }
        #expect(outcome.result == "build 1" && outcome.superseded == 0 && outcome.digests == ["A.swift": "1"])
    }

    @Test(
        "a build during which a file was saved is dropped and made again of the newest bytes, as often as needed",
        .offThePool)
    func savesDuringBuilds() {
        let sources = Sources()
        var built: [String] = []
        // Two saves land while the first two builds run (the second save while the rebuild of the first runs).
        let outcome = NewestBuild.run(digests: { sources.digests }) {
            built.append(sources.digests["A.swift"]!)
            if built.count < 3 { sources.digests["A.swift"] = String(built.count + 1) }
            return "of bytes \(built.last!)"
        }
        #expect(built == ["1", "2", "3"])
        #expect(outcome.result == "of bytes 3" && outcome.superseded == 2)
        #expect(outcome.digests == ["A.swift": "3"])
    }

    @Test("a file added while a build ran counts as a change", .offThePool)
    func addedFile() {
        let sources = Sources()
        var builds = 0
        let outcome = NewestBuild.run(digests: { sources.digests }) {
            builds += 1
            if builds == 1 { sources.digests["B.swift"] = "1" }
            return builds
        }
        #expect(outcome.result == 2 && outcome.superseded == 1)
    }
}
