import MicroappCore
import MicroappSDK
import TestScratch
import Testing

@Suite("Solo: stubs for features that are not loaded")
struct ForeignRouteTests {
    /// Characters alone: its routes need a session and nothing loaded declares a sign-in route.
    static let table = RouteTable([
        TestManifests.manifest(
            "characters",
            routes: [
                RouteDeclaration("characters://list", requiresSession: true),
                RouteDeclaration("characters://detail/{id}", requiresSession: true),
            ])
    ])
    static let foreign = ForeignRoutes(names: ["auth": "Auth", "search": "Search"], signIn: "auth://select")

    @Test("a route of a feature that is not loaded is a stub named after the feature, and back leaves it", .offThePool)
    func stub() {
        var router = Router(table: Self.table, foreign: Self.foreign)
        _ = router.open("characters://list", signedIn: true)
        let notice = router.open("search://results/rick", signedIn: true)
        #expect(router.top == .stub(url: "search://results/rick", feature: "Search"))
        #expect(notice?.code == "stub")
        #expect(notice?.message == "→ would open search://results/rick (Search is not loaded)")
        #expect(router.top?.feature == nil && router.top?.url == "search://results/rick")
        let wentBack = router.back()
        #expect(wentBack)
        #expect(router.top?.url == "characters://list")
    }

    @Test(
        "an unknown scheme is a stub named by the scheme; a loaded feature's unknown route is still a problem",
        .offThePool)
    func unknownSchemeAndUnknownRoute() {
        var router = Router(table: Self.table, foreign: Self.foreign)
        _ = router.open("nowhere://at/all", signedIn: true)
        #expect(router.top == .stub(url: "nowhere://at/all", feature: "nowhere"))
        _ = router.open("characters://nowhere", signedIn: true)
        guard case .problem = router.top else {
            Issue.record("a route of the loaded feature must stay a problem, got \(String(describing: router.top))")
            return
        }
        _ = router.open("not a url", signedIn: true)
        guard case .problem = router.top else {
            Issue.record("a malformed URL must stay a problem, got \(String(describing: router.top))")
            return
        }
    }

    @Test(
        "a guarded route opened signed out, with no sign-in feature loaded, shows the sign-in route's stub", .offThePool
    )
    func guardWithoutSignIn() {
        var router = Router(table: Self.table, foreign: Self.foreign)
        let notice = router.open("characters://detail/2", signedIn: false)
        #expect(router.top == .stub(url: "auth://select", feature: "Auth"))
        #expect(notice?.code == "redirect")
        #expect(notice?.message.contains("characters://detail/2") == true)
        _ = router.open("characters://detail/2", signedIn: true)
        #expect(router.top?.feature == "characters")
    }

    @Test(
        "the full app (no foreign routes) keeps problem screens and opens guarded routes without sign-in", .offThePool)
    func fullAppUnchanged() {
        var router = Router(table: Self.table)
        _ = router.open("search://results/rick", signedIn: true)
        guard case .problem = router.top else {
            Issue.record("expected a problem screen, got \(String(describing: router.top))")
            return
        }
        _ = router.open("characters://list", signedIn: false)
        #expect(router.top?.feature == "characters")
    }
}

@MainActor
@Suite("Solo: a container from a feature's mocks")
struct MockContainerTests {
    static let page = DependencyKey<Service<Nothing, Nothing>>.service("demo.page")
    static let optional = DependencyKey<Service<Nothing, Nothing>>.service("demo.extra", optional: true)
    static let session = DependencyKey<Session?>.session(access: .read)

    static var mocks: Mocks {
        var mocks = Mocks()
        mocks.service(page, Service { _ in Nothing() })
        mocks.service(
            page, variant: "failing", Service { _ in throw ServiceError(code: "unavailable", message: "down") })
        mocks.state(session, Session(accountID: "1", email: "rick@example.com", name: "Rick"))
        return mocks
    }

    @Test("services take the chosen variant, state is shared read-write, and the resolver accepts them")
    func container() async throws {
        let container = try Container.mocked(Self.mocks, choices: ["demo.page": "failing"])
        #expect(container.offers["demo.page"]?.provider == "mocks")
        #expect(container.property(.session(access: .readWrite))?.value?.email == "rick@example.com")
        let service = try #require(container.value(for: Self.page.requirement) as? ErasedService)
        await #expect(throws: ServiceError(code: "unavailable", message: "down")) {
            _ = try await Service<Nothing, Nothing>(erased: service)(Nothing())
        }
        #expect((container.value(for: Self.session.requirement) as? StateGrant)?.access == .read)
        let manifest = TestManifests.manifest("demo", requirements: [Self.page.requirement, Self.session.requirement])
        let resolution = DependencyResolver.resolve(
            [Candidate(manifest: manifest, path: "libDemo.so", trust: .own)], hostOffers: container.offers)
        #expect(resolution.problems.isEmpty, "\(resolution.problems)")
    }

    @Test("an unknown key, an unknown variant, or a variant of state is refused, listing the mocks")
    func refusedChoices() {
        #expect(throws: MockChoiceError.self) { try Container.mocked(Self.mocks, choices: ["demo.nope": "x"]) }
        do {
            _ = try Container.mocked(Self.mocks, choices: ["demo.page": "slow"])
            Issue.record("an unknown variant was accepted")
        } catch {
            #expect(error.reason.contains("demo.page has no variant 'slow'"))
            #expect(error.fix == "use one of: default, failing")
        }
        do {
            _ = try Container.mocked(Self.mocks, choices: ["session": "signed-out"])
            Issue.record("a variant of state was accepted")
        } catch {
            #expect(error.fix.contains("demo.page = default | failing") && error.fix.contains("session (state)"))
        }
    }

    @Test("a required key without a mock is missing; an optional one is not")
    func missing() {
        let unmocked = DependencyKey<Service<Nothing, Nothing>>.service("demo.clock")
        let manifest = TestManifests.manifest(
            "demo", requirements: [Self.page.requirement, Self.optional.requirement, unmocked.requirement])
        #expect(Self.mocks.missing(in: manifest).map(\.key) == ["demo.clock"])
    }
}
