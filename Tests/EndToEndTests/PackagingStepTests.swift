import Foundation
import TestScratch
import Testing

/// The suites whose claim is about SwiftPM packaging are in `Tests/<Target>/Packaging`: `swift test` leaves them out
/// (Package.swift), `scripts/test-packaging` runs them.
@Suite("The packaging step", .promptResumes)
struct PackagingStepTests {
    @Test(
        "swift test leaves the suites of Tests/<Target>/Packaging to scripts/test-packaging, the second step of .ci/run, and says so in one line"
    )
    func packagingSuitesHaveAStepOfTheirOwn() throws {
        let files = FileManager.default
        let tests = Repository.root.appendingPathComponent("Tests")
        let suites = try files.contentsOfDirectory(atPath: tests.path).sorted().flatMap { target in
            let folder = tests.appendingPathComponent("\(target)/Packaging").path
            let names = (try? files.contentsOfDirectory(atPath: folder)) ?? []
            return names.filter { $0.hasSuffix("Tests.swift") }.map { String($0.dropLast(".swift".count)) }.sorted()
        }
        #expect(
            Set(suites).isSuperset(of: [
                "OutsidePackageTests", "AppHostTests", "SDKEvolutionTests", "EditSourceHotSwapTests",
                "FeatureLifecycleTests",
            ]), "\(suites)")
        let script = Repository.root.appendingPathComponent("scripts/test-packaging").path
        #expect(files.isExecutableFile(atPath: script))
        let ci = try String(contentsOf: Repository.root.appendingPathComponent(".ci/run"), encoding: .utf8)
        #expect(ci.contains("scripts/test-packaging"), "the CI does not run the packaging step")
        print("note: the packaging suites (\(suites.joined(separator: ", "))) run by scripts/test-packaging")
    }
}
