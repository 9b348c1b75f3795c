import MicroappCore
import MicroappSDK
import Testing

/// Features that start after the first frame (`AppRuntime.Options.startsLater`): the one on screen and its
/// providers first, the others once the first frame was handed over, one opened meanwhile at once.
@MainActor
@Suite("Features started after the first frame")
struct LateStartTests {
    private enum Keys {
        static let ping = DependencyKey<Service<String, String>>.service("provider.ping")
    }

    @MainActor
    private final class Plain: Root {
        func screen(at location: Location) -> Screen { Screen(title: location.url, content: []) }
        func handle(_ action: Action, at location: Location) {}
    }

    private enum Provider: Feature {
        static let manifest = FeatureManifest(
            id: "provider", version: 1, displayName: "Provider", routes: [RouteDeclaration("provider://home")],
            provides: [Provision(Keys.ping)])
        static func provide(_ context: FeatureContext) throws -> Provisions {
            var provisions = Provisions()
            provisions.add(Keys.ping, Service { $0 })
            return provisions
        }
        static func makeRoot(_ context: FeatureContext) throws -> any Root { Plain() }
    }

    private enum User: Feature {
        static let manifest = FeatureManifest(
            id: "user", version: 1, displayName: "User", routes: [RouteDeclaration("user://home")],
            requirements: [Keys.ping.requirement])
        static func makeRoot(_ context: FeatureContext) throws -> any Root {
            _ = try context.service(Keys.ping)
            return Plain()
        }
    }

    private enum Other: Feature {
        static let manifest = FeatureManifest(
            id: "other", version: 1, displayName: "Other", routes: [RouteDeclaration("other://home")])
        static func makeRoot(_ context: FeatureContext) throws -> any Root { Plain() }
    }

    /// A runtime over the three features, every one starting late, its notices collected in `notices`.
    @MainActor
    private final class App {
        let runtime: AppRuntime
        var notices: [Notice] = []

        init() {
            let sources: [FeatureSource] = [.linked(Other.self), .linked(User.self), .linked(Provider.self)]
            let container = Container()
            let resolution = DependencyResolver.resolve(
                sources.map { Candidate(manifest: $0.manifest, path: $0.origin, trust: .own) },
                hostOffers: container.offers)
            var options = AppRuntime.Options(now: { .now })
            options.startsLater = ["provider", "user", "other"]
            runtime = AppRuntime(sources: sources, resolution: resolution, container: container, options: options)
            runtime.onUpdate = { [weak self] _, posted in self?.notices += posted }
        }

        var started: [String] { ["provider", "user", "other"].filter { runtime.root(of: $0) != nil } }

        /// Lets the runtime's scheduled work run until the `ready` notice came (at most `turns` turns).
        func untilReady(turns: Int = 200) async {
            for _ in 0..<turns where !notices.contains(where: { $0.code == "ready" }) { await Task.yield() }
        }
    }

    @Test("the feature on screen starts with the providers of what it requires; the others after the first frame")
    func onScreenFirst() async {
        let app = App()
        #expect(app.started == [])
        #expect(app.runtime.runningFeatures.map(\.id) == ["other", "provider", "user"])
        app.runtime.open("user://home")
        #expect(app.started == ["provider", "user"])
        #expect(app.runtime.frame.route == "user://home")
        await app.untilReady()
        #expect(app.started == ["provider", "user", "other"])
        #expect(app.notices.filter { $0.code == "ready" }.count == 1)
        #expect(app.runtime.startProblems.isEmpty)
    }

    @Test("a route of a feature not started yet starts it at once")
    func openedMeanwhile() async {
        let app = App()
        app.runtime.open("user://home")
        app.runtime.send(.open(url: "other://home"))
        #expect(app.started == ["provider", "user", "other"])
        #expect(app.runtime.frame.route == "other://home")
        #expect(app.runtime.frame.screen.title == "other://home")
        await app.untilReady()
        #expect(app.notices.filter { $0.code == "ready" }.count == 1)
    }
}
