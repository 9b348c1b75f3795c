import Foundation
import TestScratch
import Testing

@Suite("End to end: microapp graph", .promptResumes)
struct GraphTests {
    static let needySource = """
        import MicroappSDK

        public enum NeedyFeature: Feature {
            static let clock = DependencyKey<Service<Nothing, String>>.service("needy.clock")
            public static let manifest = FeatureManifest(
                id: "needy", version: 2, displayName: "Needy", routes: [RouteDeclaration("needy://home")],
                requirements: [DependencyKey<Session?>.session(access: .read).requirement, clock.requirement])
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
                throw DependencyError(key: "needy.clock", reason: "never started", fix: "none")
            }
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(NeedyFeature.self)
        }
        """

    @Test("the graph shows every feature's needs and providers, marks a missing provider, and exits 2")
    func missingProviderMarked() async throws {
        let source = try temporaryFolder("microapp-needy").appendingPathComponent("Needy.swift")
        try Self.needySource.write(to: source, atomically: true, encoding: .utf8)
        let plugins = try await compilePlugin(module: "Needy", sources: [source])
        let json = try await runToEnd(["graph", "--format", "json", "--no-build", "--plugins", plugins.path])
        #expect(json.status == 2)
        let nodes = json.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let needy = try #require(nodes.first { $0["feature"] as? String == "needy" })
        let edges = try #require(needy["requirements"] as? [[String: Any]])
        #expect(edges.first { $0["key"] as? String == "session" }?["provider"] as? String == "host")
        #expect(edges.first { $0["key"] as? String == "needy.clock" }?["status"] as? String == "missing")
        #expect(nodes.contains { $0["feature"] as? String == "characters" })

        let text = try await runToEnd(["graph", "--no-build", "--plugins", plugins.path])
        #expect(text.out.contains("needy v2"))
        #expect(text.out.contains("needy.clock (read) ← nobody   ✗ missing"))
        let dot = try await runToEnd(["graph", "--format", "dot", "--no-build", "--plugins", plugins.path])
        #expect(dot.out.hasPrefix("digraph microapp {"))
        #expect(dot.out.contains(#""needy" -> "missing:needy.clock" [label="read ✗ missing", color=red"#))
        #expect(dot.out.contains(#""needy" [shape=box, label="needy v2 (untrusted)"#))
        // Drawn by Graphviz: the untrusted feature and the key nobody provides are in the picture, as text.
        let svg = try await runToEnd(["graph", "--format", "svg", "--no-build", "--plugins", plugins.path])
        #expect(svg.status == 2)
        #expect(svg.out.contains("<svg") && svg.out.contains("</svg>"))
        #expect(svg.out.contains(">needy v2 (untrusted)</text>"))
        #expect(svg.out.contains(">nobody provides needy.clock</text>"))
    }
}
