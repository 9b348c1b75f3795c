import Foundation
import TestScratch
import Testing

@Suite("End to end: who links the demo's contracts", .promptResumes)
struct DemoContractsLinkTests {
    /// The targets and products SwiftPM reads from this repository's `Package.swift` once `microapp new NAME` has
    /// added a feature, evaluated in a folder of its own (no build, so no lock on the repository's `.build`). Its
    /// feature list is the demo's, whatever features a person added to this repository.
    static func packageAfterNew(_ name: String) async throws -> [String: Any] {
        let root = try temporaryFolder("microapp-contracts")
        defer { try? FileManager.default.removeItem(at: root) }
        let sdk = root.appendingPathComponent("Sources/MicroappSDK")
        try FileManager.default.createDirectory(at: sdk, withIntermediateDirectories: true)
        let manifest = try String(
            contentsOf: Repository.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        try demoList(in: manifest).write(
            to: root.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            at: Repository.root.appendingPathComponent("Sources/MicroappSDK/Package.swift"),
            to: sdk.appendingPathComponent("Package.swift"))
        for feature in Repository.featureFolders {
            for part in ["Sources", "Entry", "Tests"] {
                try FileManager.default.createDirectory(
                    at: root.appendingPathComponent("Plugins/\(feature)/\(part)"), withIntermediateDirectories: true)
            }
        }
        let created = try await runMicroapp(["new", name], in: root)
        #expect(created.status == 0, "\(created.err)")
        let dump = try await runToEnd(
            ["swift", "package", "dump-package", "--manifest-cache", "none"], executable: "/usr/bin/env", in: root)
        #expect(dump.status == 0, "\(dump.err)")
        return try JSONSerialization.jsonObject(with: Data(dump.out.utf8)) as? [String: Any] ?? [:]
    }

    /// `manifest` with the demo's features in its list (the lines between the `microapp: features` markers).
    static func demoList(in manifest: String) -> String {
        var lines = manifest.components(separatedBy: "\n")
        guard let begin = lines.firstIndex(where: { $0.contains("// microapp: features begin") }),
            let end = lines.firstIndex(where: { $0.contains("// microapp: features end") }), begin < end
        else { return manifest }
        lines.replaceSubrange((begin + 1)..<end, with: Repository.featureFolders.map { "    \"\($0)\"," })
        return lines.joined(separator: "\n")
    }

    /// The names a target's dependencies point at (targets by name, products by product name).
    static func dependencies(of target: String, in package: [String: Any]) -> [String] {
        let targets = package["targets"] as? [[String: Any]] ?? []
        let dependencies = targets.first { $0["name"] as? String == target }?["dependencies"] as? [[String: Any]] ?? []
        return dependencies.compactMap { dependency in
            for kind in ["byName", "target", "product"] {
                if let name = (dependency[kind] as? [Any])?.first as? String { return name }
            }
            return nil
        }
    }

    @Test("a feature made by microapp new depends on the SDK only; the demo's features also on DemoContracts")
    func newFeatureLinksNoDemoCode() async throws {
        let name = NewCommandTests.name
        let package = try await Self.packageAfterNew(name)
        #expect(Self.dependencies(of: name, in: package) == ["MicroappSDK"])
        #expect(!Self.dependencies(of: "\(name)Plugin", in: package).contains("DemoContracts"))
        #expect(Self.dependencies(of: "Auth", in: package).contains("DemoContracts"))
        let products = (package["products"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(products.contains("DemoContracts"), "outside features can link the demo host's contracts")
    }
}
