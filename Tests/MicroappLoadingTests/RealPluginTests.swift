import Foundation
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import TestPlugins
import Testing

@Suite("The real plugins built by swift test load, register and resolve")
@MainActor
struct RealPluginTests {
    @Test("libAuth.so loads, registers a Feature type across images, and its manifest id is auth")
    func authLoadsAndRegisters() throws {
        let path = try #require(
            Paths.realPlugins.first { $0.hasSuffix("/libAuth.so") }, "libAuth.so is not in \(Paths.runnerDirectory)")
        let image = try PluginLoader.load(path).get()
        #expect(image.path == path)
        #expect(image.manifest.id == "auth")
        #expect(image.manifest.routes.contains { $0.isSignIn })

        let registered = try PluginLoader.register(image).get()
        // The SDK's `as?` to `Feature.Type` happened inside the plugin's image; doing it again here, through `Any`,
        // shows the host and the plugin share one SDK (one set of protocol metadata).
        let erased: Any.Type = registered
        let feature = try #require(erased as? any Feature.Type, "the registered type is not a Feature.Type here")
        #expect(String(reflecting: feature) == "Auth.AuthFeature")
        #expect(feature.manifest == image.manifest, "the type's own manifest is the one the descriptor carried")
    }

    @Test("the same library loaded twice gives the same image, and registering again still works")
    func loadTwice() throws {
        let path = try #require(Paths.realPlugins.first { $0.hasSuffix("/libAuth.so") })
        let first = try PluginLoader.load(path).get()
        let second = try PluginLoader.load(path).get()
        #expect(first.manifest == second.manifest)
        let a = try PluginLoader.register(first).get()
        let b = try PluginLoader.register(second).get()
        #expect(ObjectIdentifier(a) == ObjectIdentifier(b))
    }

    @Test("every real plugin beside the runner loads and resolves against the host's container")
    func realSetResolves() async throws {
        let paths = Paths.realPlugins
        #expect(!paths.isEmpty)
        let (report, resolution) = await Host.loadAndResolve(paths)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(resolution.problems.isEmpty, "\(resolution.problems.map(\.description))")
        #expect(Set(resolution.startOrder) == Set(report.images.map(\.manifest.id)))
        for image in report.images {
            #expect(throws: Never.self, "\(image.path) registers") { try PluginLoader.register(image).get() }
        }
    }

    @Test("the SDK library itself is not taken for a plugin")
    func sdkIsNotDiscovered() {
        #expect(FileManager.default.fileExists(atPath: Paths.runnerDirectory + "/libMicroappSDK.so"))
        #expect(!Paths.realPlugins.contains { $0.hasSuffix("/libMicroappSDK.so") })
    }
}
