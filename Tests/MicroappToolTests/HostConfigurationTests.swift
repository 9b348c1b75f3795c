import Foundation
import MicroappCore
import MicroappHost
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import Synchronization
import Testing

@testable import MicroappTool

@Suite("The generic commands take the app's name, routes and services from the host's configuration")
@MainActor
struct HostConfigurationTests {
    /// The uses the services hook was asked for, in order.
    final class Uses: Sendable {
        private let list = Mutex<[HostConfiguration.ServicesUse]>([])
        func add(_ use: HostConfiguration.ServicesUse) { list.withLock { $0.append(use) } }
        var all: [HostConfiguration.ServicesUse] { list.withLock { $0 } }
    }

    /// A configuration of an app that is not the demo: its own name and routes, services recorded in `uses`.
    static func host(recording uses: Uses, offering container: Container) -> HostConfiguration {
        HostConfiguration(
            name: "Portal", home: "portal://home", signInFallback: "gate://in",
            services: { use, _ in
                uses.add(use)
                return container
            })
    }

    @Test("the inspect commands open the configuration's services for inspection and resolve against them")
    func inspectionUsesTheConfiguredServices() async throws {
        let uses = Uses()
        let container = Container()
        let arguments = try Arguments(["routes", "--no-build", "--no-probe"], environment: .process)
        let set = try await LoadedPluginSet.load(
            arguments, host: Self.host(recording: uses, offering: container), directories: [])
        #expect(uses.all == [.inspection])
        #expect(set.container === container)
    }

    @Test("run opens the configuration's services live")
    func runUsesLiveServices() async throws {
        let uses = Uses()
        let arguments = try Arguments(["run", "--no-build", "--no-probe"], environment: .process)
        _ = try await LoadedPluginSet.load(
            arguments, host: Self.host(recording: uses, offering: Container()), directories: [], services: .live)
        #expect(uses.all == [.live])
    }

    @Test("the host's own screens carry the configured app name")
    func hostScreensCarryTheName() {
        let runtime = AppRuntime(
            images: [], resolution: PluginSet.resolve([], container: Container(), trust: { _ in .own }),
            container: Container(),
            options: AppRuntime.Options(name: "Portal", home: "portal://home", now: { .now }))
        #expect(runtime.frame.featureName == "Portal")
    }
}
