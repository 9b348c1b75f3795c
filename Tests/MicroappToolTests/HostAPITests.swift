import Foundation
import TestScratch
import Testing

/// The host API is what `import MicroappTool` gives an app's host, on purpose: the SDK, MicroappTool's own types and the
/// engine's types HostAPI.swift names. scripts/check-host-api compares its every declaration with
/// Sources/MicroappTool/host-api.txt; this suite checks that the hosts and the guide need nothing else.
@Suite("The host API")
struct HostAPITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The modules `source` imports, `@_exported` or not.
    static func imports(_ source: String) -> Set<String> {
        Set(
            source.split(separator: "\n").compactMap { line in
                let words = line.split(separator: " ")
                guard let at = words.firstIndex(of: "import"), at + 1 < words.count else { return nil }
                return words[..<at].allSatisfy({ $0.hasPrefix("@") }) ? String(words[at + 1]) : nil
            })
    }

    @Test(
        "MicroappTool re-exports the SDK alone: the engine reaches a host only by the names HostAPI.swift gives",
        .offThePool)
    func onlyTheSDKIsReExported() throws {
        let folder = Self.root.appendingPathComponent("Sources/MicroappTool")
        var exported: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
            let source = try Self.text("Sources/MicroappTool/\(file)")
            exported += source.split(separator: "\n").filter { $0.hasPrefix("@_exported import ") }.map {
                "\(file): \($0)"
            }
        }
        #expect(exported == ["HostAPI.swift: @_exported import MicroappSDK"])
    }

    @Test("the demo's composition root imports MicroappTool and its own services, nothing of the engine", .offThePool)
    func demoHostUsesTheHostAPI() throws {
        let folder = Self.root.appendingPathComponent("hosts/microapp/CLI")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        for file in files {
            let imports = Self.imports(try Self.text("hosts/microapp/CLI/\(file)"))
            #expect(imports.isSubset(of: ["Foundation", "MicroappTool", "DemoServices"]), "\(file): \(imports)")
        }
        let manifest = try Self.text("Package.swift")
        let host = try #require(manifest.range(of: "name: \"microapp\", dependencies: ["))
        let dependencies = manifest[host.upperBound...].prefix { $0 != "]" }
        #expect(dependencies == "\"MicroappTool\", \"DemoServices\"", "the demo host's target depends on more")
    }

    @Test("every type the guide's host uses is in the host API's baseline or the SDK's", .offThePool)
    func guideUsesTheHostAPI() throws {
        let guide = try Self.text("docs/app-host.md")
        let blocks = guide.components(separatedBy: "```swift\n").dropFirst().map {
            $0.components(separatedBy: "\n```").first ?? ""
        }
        let main = try #require(blocks.first { $0.contains("MicroappTool.main(host:") })
        #expect(Self.imports(main) == ["Foundation", "MicroappTool"])
        let baseline = try Self.text("Sources/MicroappTool/host-api.txt")
        let sdk = try Self.text("Sources/MicroappSDK/abi-baseline-1.json")
        for type in ["HostConfiguration", "Container", "MicroappTool", "DependencyKey", "Service"] {
            #expect(main.contains(type), "the guide's host no longer uses \(type): update this list")
            #expect(
                baseline.contains(" \(type):") || sdk.contains("\"name\": \"\(type)\""),
                "\(type) is in neither the host API's baseline nor the SDK's")
        }
        #expect(baseline.contains(" MicroappTool.main(host:environment:words:): "), "\(baseline.prefix(400))")
    }
}
