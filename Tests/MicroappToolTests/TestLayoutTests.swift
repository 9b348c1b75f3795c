import Foundation
import TestScratch
import Testing

/// The tests mirror the modules: each Swift module of Sources/ has a test target named after it, in a folder named
/// after it, so "where are the tests of X" has one answer.
@Suite("Tests mirror the modules")
struct TestLayoutTests {
    /// Modules without a test target of their own, each with why.
    static let untested: [String: String] = [
        "MicroappTesting": "test helpers over the SDK's RootDriver: every feature's tests use them",
        "DemoContracts": "Codable shapes with no logic; DemoContractsLinkTests checks that features link them",
    ]

    @Test(
        "every Swift module of Sources/ has Tests/<Module>Tests, and every test target is named after a target",
        .offThePool)
    func everyModuleHasItsTestTarget() throws {
        let graph = try PackageGraph(manifest: try PictureTests.text("Package.swift"))
        let modules = graph.paths.filter { $0.value.hasPrefix("Sources/") && Self.hasSwift(in: $0.value) }.keys
        for module in modules.sorted() where Self.untested[module] == nil {
            #expect(graph.paths["\(module)Tests"] == "Tests/\(module)Tests", "\(module) has no test target of its own")
        }
        let tests = graph.paths.filter { $0.value.hasPrefix("Tests/") && $0.key.hasSuffix("Tests") }.keys
        for test in tests.sorted() where test != "EndToEndTests" {
            #expect(graph.paths[String(test.dropLast("Tests".count))] != nil, "\(test) is named after no target")
        }
        #expect(tests.count >= 10, "only \(tests.sorted()) found: is Package.swift still read right?")
        for module in Self.untested.keys { #expect(modules.contains(module), "\(module) is no longer a module") }
    }

    /// True when the folder at `path` (relative to the repository) holds a Swift file, at any depth.
    static func hasSwift(in path: String) -> Bool {
        let folder = PictureTests.root.appendingPathComponent(path)
        let files = FileManager.default.enumerator(atPath: folder.path)
        return files?.contains { ($0 as? String)?.hasSuffix(".swift") == true } ?? false
    }
}
