import Foundation
import Testing

@Suite("End to end: who links the demo's contracts")
struct DemoContractsLinkTests {
    /// The targets and products SwiftPM reads from this repository's `Package.swift` once `microapp new NAME` has
    /// added a feature, evaluated in a folder of its own (no build, so no lock on the repository's `.build`).
    static func packageAfterNew(_ name: String) async throws -> [String: Any] {
        let root = try temporaryFolder("microapp-contracts")
        defer { try? FileManager.default.removeItem(at: root) }
        let sdk = root.appendingPathComponent("Sources/MicroappSDK")
        try FileManager.default.createDirectory(at: sdk, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Repository.root.appendingPathComponent("Package.swift"),
            to: root.appendingPathComponent("Package.swift"))
        try FileManager.default.copyItem(
            at: Repository.root.appendingPathComponent("Sources/MicroappSDK/Package.swift"),
            to: sdk.appendingPathComponent("Package.swift"))
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("Plugins/Auth/Sources"), withIntermediateDirectories: true)
        let created = try await runMicroapp(["new", name], in: root)
        #expect(created.status == 0, "\(created.err)")
        let dump = try await runToEnd(
            ["swift", "package", "dump-package", "--manifest-cache", "none"], executable: "/usr/bin/env", in: root)
        #expect(dump.status == 0, "\(dump.err)")
        return try JSONSerialization.jsonObject(with: Data(dump.out.utf8)) as? [String: Any] ?? [:]
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
        let package = try await Self.packageAfterNew("Profile")
        #expect(Self.dependencies(of: "Profile", in: package) == ["MicroappSDK"])
        #expect(!Self.dependencies(of: "ProfilePlugin", in: package).contains("DemoContracts"))
        #expect(Self.dependencies(of: "Auth", in: package).contains("DemoContracts"))
        let products = (package["products"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(products.contains("DemoContracts"), "outside features can link the demo host's contracts")
    }
}
