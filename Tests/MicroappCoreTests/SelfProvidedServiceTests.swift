import MicroappCore
import MicroappSDK
import Testing

/// `echo.say`, which the echo feature both provides to the app and calls from its own screen (as `microapp new`'s
/// scaffold does with its greeting).
private enum EchoKeys {
    static let say = DependencyKey<Service<String, String>>.service("echo.say")
}

private protocol Echo: Feature {
    static var version: Int { get }
}

extension Echo {
    static var manifest: FeatureManifest {
        FeatureManifest(
            id: "echo", version: version, displayName: "Echo", routes: [RouteDeclaration("echo://home")],
            requirements: [EchoKeys.say.requirement], provides: [Provision(EchoKeys.say)], hasMocks: true)
    }

    @MainActor static func provide(_ context: FeatureContext) throws -> Provisions {
        var provisions = Provisions()
        let version = version
        provisions.add(EchoKeys.say, Service { "live v\(version): \($0)" })
        return provisions
    }

    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root {
        EchoRoot(say: try context.service(EchoKeys.say))
    }

    @MainActor static func mocks() -> Mocks {
        var mocks = Mocks()
        mocks.service(EchoKeys.say, Service { "mock: \($0)" })
        return mocks
    }
}

private enum EchoV1: Echo {
    static let version = 1
}

private enum EchoV2: Echo {
    static let version = 2
}

/// Calls `echo.say` with "Rick" on a tap and shows the answer.
@MainActor
private final class EchoRoot: Root {
    let say: Service<String, String>
    var answer = ""
    var pending: Task<Void, Never>?

    /// The Root made last (a swap makes a new one).
    static var latest: EchoRoot?

    init(say: Service<String, String>) {
        self.say = say
        Self.latest = self
    }

    func screen(at location: Location) -> Screen {
        Screen(title: "Echo", content: [.text(Text(answer)), .button(Button(id: "echo", title: "Echo"))])
    }

    func handle(_ action: Action, at location: Location) {
        pending = Task { answer = (try? await say("Rick")) ?? "failed" }
    }
}

@MainActor
@Suite("A feature that needs the service it provides", .serialized)
struct SelfProvidedServiceTests {
    @Test("in the app it gets its own service, and after a swap the new version's")
    func ownServiceInTheApp() async throws {
        let container = Container()
        let runtime = try start(EchoV1.self, in: container)
        #expect(try await answer(in: runtime) == "live v1: Rick")
        #expect(container.offers["echo.say"]?.provider == "echo")
        #expect(throws: Never.self) { try runtime.swap("echo", to: .linked(EchoV2.self)).get() }
        #expect(try await answer(in: runtime) == "live v2: Rick")
    }

    @Test("run alone, its mock stands in for the service it provides, also after a swap")
    func mockWhenAlone() async throws {
        let container = try Container.mocked(EchoV1.mocks())
        let runtime = try start(EchoV1.self, in: container)
        #expect(try await answer(in: runtime) == "mock: Rick")
        #expect(container.offers["echo.say"]?.provider == Container.mocks)
        #expect(throws: Never.self) { try runtime.swap("echo", to: .linked(EchoV2.self)).get() }
        #expect(try await answer(in: runtime) == "mock: Rick")
    }

    private func start(_ feature: any Feature.Type, in container: Container) throws -> AppRuntime {
        let source = FeatureSource.linked(feature)
        let resolution = DependencyResolver.resolve(
            [Candidate(manifest: source.manifest, path: source.origin, trust: .own)], hostOffers: container.offers)
        #expect(resolution.problems.isEmpty, "\(resolution.problems)")
        let runtime = AppRuntime(
            sources: [source], resolution: resolution, container: container, options: AppRuntime.Options(now: { .now }))
        #expect(runtime.startProblems.isEmpty, "\(runtime.startProblems)")
        runtime.open("echo://home")
        return runtime
    }

    /// Taps the screen and returns what the Root answered once its call is done.
    private func answer(in runtime: AppRuntime) async throws -> String {
        runtime.send(.action(.tap(id: "echo")))
        let root = try #require(EchoRoot.latest)
        await root.pending?.value
        return root.answer
    }
}
