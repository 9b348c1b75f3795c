import MicroappCore
import MicroappSDK
import TestScratch
import Testing

/// The contract the resolver enforces between features and the host beyond names: shapes of what crosses, one
/// owner per piece of state, one sign-in route.
@Suite("Resolver: shapes, state owners and the sign-in route")
struct ContractRulesTests {
    typealias T = TestManifests

    /// The demo's page service as the host was built with it, and as a plugin built against other contracts sees it.
    enum Host { struct Page: Codable { var page: Int; var pageCount: Int; var names: [String] } }
    enum Older { struct Page: Codable { var page: Int; var total: Int; var names: [String] } }
    enum Newer { struct Page: Codable { var page: Int; var pageCount: Int; var names: [String]; var note: String? } }
    struct Request: Codable { var page: Int }

    static func offer<V>(_ key: DependencyKey<V>, access: Access = .read) -> [String: Offer] {
        [
            key.id: Offer(
                key: key.id, type: key.typeName, kind: key.kind, access: access, provider: "host",
                shape: key.shape.description)
        ]
    }

    @Test(
        "a service whose response shape differs from the host's is refused before start, naming both shapes",
        .offThePool)
    func serviceShapeMismatch() throws {
        let hostKey = DependencyKey<Service<Request, Host.Page>>.service("characters.page")
        let pluginKey = DependencyKey<Service<Request, Older.Page>>.service("characters.page")
        let resolution = DependencyResolver.resolve(
            [T.candidate("characters", requirements: [pluginKey.requirement])], hostOffers: Self.offer(hostKey))
        let problem = try #require(resolution.problems.first)
        #expect(problem.code == .wrongShape)
        #expect(problem.reason.contains("characters needs characters.page (service) with shape \(pluginKey.shape)"))
        #expect(problem.reason.contains("host offers shape \(hostKey.shape)"))
        #expect(problem.fix.contains("rebuild characters against the contracts host was built with"))
        #expect(resolution.disabled["characters"] != nil)
    }

    @Test("a caller built with an older response type that lacks an optional field still fits the service", .offThePool)
    func optionalFieldFits() {
        let hostKey = DependencyKey<Service<Request, Newer.Page>>.service("characters.page")
        let pluginKey = DependencyKey<Service<Request, Host.Page>>.service("characters.page")
        let resolution = DependencyResolver.resolve(
            [T.candidate("characters", requirements: [pluginKey.requirement])], hostOffers: Self.offer(hostKey))
        #expect(resolution.problems.isEmpty)
        let reversed = DependencyResolver.resolve(
            [T.candidate("characters", requirements: [hostKey.requirement])], hostOffers: Self.offer(pluginKey))
        #expect(reversed.problems.isEmpty, "a reader's optional field may be missing from what it reads")
    }

    @Test("state read with a narrower shape fits, but its owner must write what the host reads", .offThePool)
    func stateShapeByAccess() throws {
        let held = DependencyKey<Newer.Page>.state("page", access: .readWrite)
        let reader = DependencyKey<Host.Page>.state("page", access: .read)
        let owner = DependencyKey<Host.Page>.state("page", access: .readWrite)
        #expect(
            DependencyResolver.resolve(
                [T.candidate("reader", requirements: [reader.requirement])],
                hostOffers: Self.offer(held, access: .readWrite)
            ).problems.isEmpty)
        let strict = DependencyResolver.resolve(
            [
                T.candidate(
                    "owner", requirements: [DependencyKey<Older.Page>.state("page", access: .readWrite).requirement])
            ],
            hostOffers: Self.offer(held, access: .readWrite))
        #expect(try #require(strict.problems.first).code == .wrongShape)
        #expect(
            DependencyResolver.resolve(
                [T.candidate("owner", requirements: [owner.requirement])],
                hostOffers: Self.offer(held, access: .readWrite)
            ).problems.isEmpty)
    }

    @Test("a requirement from a manifest written before shapes is checked by type name only", .offThePool)
    func manifestWithoutShape() {
        var requirement = DependencyKey<Service<Request, Older.Page>>.service("characters.page").requirement
        requirement.shape = nil
        let resolution = DependencyResolver.resolve(
            [T.candidate("characters", requirements: [requirement])],
            hostOffers: Self.offer(DependencyKey<Service<Request, Older.Page>>.service("characters.page")))
        #expect(resolution.problems.isEmpty)
    }

    @Test("two features claiming the same state read-write are both refused, each naming the other", .offThePool)
    func secondOwner() throws {
        let key = DependencyKey<Session?>.session(access: .readWrite)
        let resolution = DependencyResolver.resolve(
            [
                T.candidate("auth", requirements: [key.requirement]),
                T.candidate("mallory", requirements: [key.requirement]),
                T.candidate("reader", requirements: [DependencyKey<Session?>.session(access: .read).requirement]),
            ], hostOffers: Self.offer(key, access: .readWrite))
        #expect(resolution.problems.count == 2)
        for (id, other) in [("auth", "mallory"), ("mallory", "auth")] {
            let problem = try #require(resolution.disabled[id])
            #expect(problem.code == .secondOwner)
            #expect(problem.reason.contains("\(id) claims session read-write, and so does \(other)"))
            #expect(problem.fix.contains("load only one of auth, mallory"))
        }
        #expect(resolution.startOrder == ["reader"])
    }

    @Test("two sign-in routes are refused whichever sorts first, naming both routes and features", .offThePool)
    func secondSignIn() throws {
        let routes = { (id: String) in [RouteDeclaration("\(id)://sign-in", isSignIn: true)] }
        for order in [["auth", "aaa"], ["aaa", "auth"]] {
            let resolution = DependencyResolver.resolve(
                order.map { T.candidate($0, routes: routes($0)) } + [T.candidate("home")], hostOffers: [:])
            #expect(resolution.startOrder == ["home"])
            for id in order {
                let problem = try #require(resolution.disabled[id])
                #expect(problem.code == .secondSignIn)
                #expect(
                    problem.reason.contains("auth://sign-in of auth") && problem.reason.contains("aaa://sign-in of aaa")
                )
            }
        }
    }

    @Test(
        "when the host names the session's owner, a second claimant is refused naming the owner, and the owner runs",
        .offThePool)
    func namedOwnerKeepsRunning() throws {
        let key = DependencyKey<Session?>.session(access: .readWrite)
        let rules = ResolutionRules(stateOwners: ["session": "auth"], signInFeature: "auth")
        for order in [["auth", "mallory"], ["mallory", "auth"]] {
            let resolution = DependencyResolver.resolve(
                order.map { T.candidate($0, requirements: [key.requirement]) },
                hostOffers: Self.offer(key, access: .readWrite),
                rules: rules)
            #expect(resolution.startOrder == ["auth"])
            let problem = try #require(resolution.disabled["mallory"])
            #expect(problem.code == .secondOwner)
            #expect(problem.reason == "mallory claims session read-write, but the host names auth its one owner")
            #expect(problem.fix.contains("read access"))
        }
    }

    @Test(
        "when the host names the sign-in feature, another sign-in route is refused whichever sorts first", .offThePool)
    func namedSignInKeepsRunning() throws {
        let routes = { (id: String) in [RouteDeclaration("\(id)://sign-in", isSignIn: true)] }
        for order in [["auth", "aaa"], ["aaa", "auth"]] {
            let resolution = DependencyResolver.resolve(
                order.map { T.candidate($0, routes: routes($0)) }, hostOffers: [:],
                rules: ResolutionRules(signInFeature: "auth"))
            #expect(resolution.startOrder == ["auth"])
            let problem = try #require(resolution.disabled["aaa"])
            #expect(problem.code == .secondSignIn && problem.reason.contains("auth's"))
        }
    }

    @Test("a named owner that is not loaded changes nothing: every claimant is refused", .offThePool)
    func absentNamedOwner() {
        let key = DependencyKey<Session?>.session(access: .readWrite)
        let resolution = DependencyResolver.resolve(
            ["mallory", "eve"].map { T.candidate($0, requirements: [key.requirement]) },
            hostOffers: Self.offer(key, access: .readWrite), rules: ResolutionRules(stateOwners: ["session": "auth"]))
        #expect(resolution.startOrder.isEmpty)
        #expect(Set(resolution.disabled.keys) == ["mallory", "eve"])
    }

    @Test(
        "a feature refused for its capabilities claims nothing: the owner beside it runs, with no second-owner refusal",
        .offThePool)
    func capabilityRefusedClaimsNothing() throws {
        let key = DependencyKey<Session?>.session(access: .readWrite)
        var spy = T.manifest("spy", requirements: [key.requirement])
        spy.capabilities = [Capability(rawValue: "camera")]
        let resolution = DependencyResolver.resolve(
            [
                T.candidate("auth", requirements: [key.requirement]),
                Candidate(manifest: spy, path: "/p/libSpy.so", trust: .own),
            ],
            hostOffers: Self.offer(key, access: .readWrite))
        #expect(resolution.startOrder == ["auth"])
        #expect(resolution.disabled["spy"]?.code == .unknownCapability)
        #expect(resolution.problems.count == 1)
    }

    @Test("one sign-in route and one owner per key is a sound set", .offThePool)
    func soundSet() {
        let key = DependencyKey<Session?>.session(access: .readWrite)
        let resolution = DependencyResolver.resolve(
            [
                T.candidate(
                    "auth", routes: [RouteDeclaration("auth://sign-in", isSignIn: true)],
                    requirements: [key.requirement]),
                T.candidate("home", requirements: [DependencyKey<Session?>.session(access: .read).requirement]),
            ], hostOffers: Self.offer(key, access: .readWrite))
        #expect(resolution.problems.isEmpty)
        #expect(resolution.startOrder == ["auth", "home"])
    }
}
