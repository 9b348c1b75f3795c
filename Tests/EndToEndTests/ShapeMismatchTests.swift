import Foundation
import TestScratch
import Testing

@Suite("End to end: a plugin built against other contracts", .promptResumes)
struct ShapeMismatchTests {
    /// Asks for the demo host's `characters.page` under the same type names, but its own `CharacterPage` counts
    /// pages in a field the host's does not write.
    static let staleSource = """
        import MicroappSDK

        public struct PageRequest: Codable, Sendable { public var page: Int }
        public struct CharacterPage: Codable, Sendable { public var page: Int; public var total: Int }

        public enum StaleFeature: Feature {
            static let page = DependencyKey<Service<PageRequest, CharacterPage>>.service("characters.page")
            public static let manifest = FeatureManifest(
                id: "stale", version: 1, displayName: "Stale", routes: [RouteDeclaration("stale://home")],
                requirements: [page.requirement])
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
                throw DependencyError(key: "characters.page", reason: "must never start", fix: "none")
            }
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(StaleFeature.self)
        }
        """

    @Test("a service whose response shape differs from the host's is a wrong-shape edge and a refusal before start")
    func staleContractRefused() async throws {
        let folder = try temporaryFolder("microapp-stale")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("Stale.swift")
        try Self.staleSource.write(to: source, atomically: true, encoding: .utf8)
        let plugins = try await compilePlugin(module: "Stale", sources: [source])
        defer { try? FileManager.default.removeItem(at: plugins) }

        let graph = try await runToEnd(["graph", "--format", "json", "--no-build", "--plugins", plugins.path])
        #expect(graph.status == 2)
        let stale = graph.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first { $0["feature"] as? String == "stale" }
        let edge = try #require((stale?["requirements"] as? [[String: Any]])?.first)
        #expect(edge["status"] as? String == "wrong-shape")
        #expect(edge["shape"] as? String == #"({"page":Int})->{"page":Int,"total":Int}"#)

        let doctor = try await runToEnd(["doctor", "--no-build", plugins.path])
        #expect(doctor.status == 2)
        let message = doctor.out + doctor.err
        #expect(
            message.contains(
                #"stale needs characters.page (service) with shape ({"page":Int})->{"page":Int,"total":Int}; host offers shape"#
            ), "\(message)")
        #expect(message.contains("rebuild stale against the contracts host was built with"))
    }
}
