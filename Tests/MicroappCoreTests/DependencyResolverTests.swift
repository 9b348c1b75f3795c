import MicroappCore
import MicroappSDK
import TestScratch
import Testing

@Suite("Dependency resolver")
struct DependencyResolverTests {
    typealias T = TestManifests

    @Test("a sound set starts providers before the features that use them", .offThePool)
    func startOrder() {
        let provided = T.service("search.run")
        let resolution = DependencyResolver.resolve(
            [
                T.candidate("home", requirements: [provided.requirement]),
                T.candidate("search", provides: [Provision(provided)]),
            ], hostOffers: [:])
        #expect(resolution.problems.isEmpty)
        #expect(resolution.startOrder == ["search", "home"])
    }

    @Test("a missing requirement names the key, the chain and the fix", .offThePool)
    func missing() throws {
        let resolution = DependencyResolver.resolve(
            [T.candidate("characters", requirements: [DependencyKey<Session?>.session(access: .read).requirement])],
            hostOffers: [:])
        let problem = try #require(resolution.problems.first)
        #expect(problem.code == .missingRequirement)
        #expect(problem.reason == "characters needs session (read, Optional<Session>) ← provided by nobody")
        #expect(problem.fix.contains("register 'session'"))
        #expect(resolution.startOrder.isEmpty)
    }

    @Test("an optional requirement may be missing", .offThePool)
    func optionalMissing() {
        let resolution = DependencyResolver.resolve(
            [T.candidate("a", requirements: [T.service("extra", optional: true).requirement])], hostOffers: [:])
        #expect(resolution.problems.isEmpty)
        #expect(resolution.startOrder == ["a"])
    }

    @Test("a requirement of another type is refused with both types", .offThePool)
    func wrongType() throws {
        let resolution = DependencyResolver.resolve(
            [T.candidate("a", requirements: [T.service("svc").requirement])],
            hostOffers: ["svc": T.hostOffer("svc", type: "Service<Int, String>")])
        let problem = try #require(resolution.problems.first)
        #expect(problem.code == .wrongType)
        #expect(problem.reason.contains("Service<Nothing, Nothing>") && problem.reason.contains("Service<Int, String>"))
    }

    @Test("read-write access to state shared read-only is refused", .offThePool)
    func wrongAccess() throws {
        let key = DependencyKey<Session?>.session(access: .readWrite)
        let resolution = DependencyResolver.resolve(
            [T.candidate("auth", requirements: [key.requirement])],
            hostOffers: ["session": T.hostOffer("session", type: key.typeName, access: .read)])
        let problem = try #require(resolution.problems.first)
        #expect(problem.code == .wrongAccess)
        #expect(problem.reason.contains("shares it read-only"))
    }

    @Test("a second provider of a key is refused, naming the first", .offThePool)
    func duplicateProvider() throws {
        let key = T.service("svc")
        let resolution = DependencyResolver.resolve(
            [T.candidate("b", provides: [Provision(key)])], hostOffers: ["svc": T.hostOffer("svc")])
        let problem = try #require(resolution.problems.first)
        #expect(problem.code == .duplicateProvider)
        #expect(problem.reason == "b provides svc, which host already provides")
    }

    @Test("a cycle through plugin-provided services disables every feature in it, with the chain", .offThePool)
    func cycle() throws {
        let x = T.service("x")
        let y = T.service("y")
        let resolution = DependencyResolver.resolve(
            [
                T.candidate("a", requirements: [y.requirement], provides: [Provision(x, uses: ["y"])]),
                T.candidate("b", requirements: [x.requirement], provides: [Provision(y, uses: ["x"])]),
            ], hostOffers: [:])
        #expect(resolution.problems.map(\.code) == [.cycle, .cycle])
        #expect(resolution.problems[0].reason.contains("a needs y ← provided by b; b needs x ← provided by a"))
        #expect(resolution.startOrder.isEmpty)
    }

    @Test("a feature whose provider is disabled is disabled too, with the provider's reason", .offThePool)
    func providerDisabled() throws {
        let x = T.service("x")
        let resolution = DependencyResolver.resolve(
            [
                T.candidate("a", requirements: [T.service("missing").requirement], provides: [Provision(x)]),
                T.candidate("b", requirements: [x.requirement]),
                T.candidate("c"),
            ], hostOffers: [:])
        #expect(resolution.problems.map(\.code) == [.missingRequirement, .providerDisabled])
        #expect(resolution.disabled["b"]?.reason.contains("provided by a, which is disabled") == true)
        #expect(resolution.startOrder == ["c"])
    }

    @Test("the second library with a feature id is refused, naming both files", .offThePool)
    func duplicateID() throws {
        let resolution = DependencyResolver.resolve(
            [T.candidate("a"), Candidate(manifest: T.manifest("a"), path: "/other/libA.so", trust: .own)],
            hostOffers: [:])
        let problem = try #require(resolution.problems.first)
        #expect(problem.code == .duplicateFeature)
        #expect(problem.subject == "/other/libA.so")
        #expect(problem.reason.contains("/plugins/libA.so"))
        #expect(resolution.startOrder == ["a"])
    }

    @Test("ambiguous routes are refused, naming both patterns", .offThePool)
    func routeConflict() throws {
        let resolution = DependencyResolver.resolve(
            [T.candidate("a", routes: [RouteDeclaration("a://detail/{id}"), RouteDeclaration("a://{kind}/new")])],
            hostOffers: [:])
        let problem = try #require(resolution.problems.first)
        #expect(problem.code == .routeConflict)
        #expect(problem.reason.contains("a://{kind}/new") && problem.reason.contains("a://detail/{id}"))
    }

    @Test("inside one feature a literal route may refine a parameter route", .offThePool)
    func literalRefinesParameter() {
        let resolution = DependencyResolver.resolve(
            [T.candidate("a", routes: [RouteDeclaration("a://detail/{id}"), RouteDeclaration("a://detail/new")])],
            hostOffers: [:])
        #expect(resolution.problems.isEmpty)
    }

    @Test("several problems are all reported in one pass", .offThePool)
    func severalAtOnce() {
        let resolution = DependencyResolver.resolve(
            [
                T.candidate("a", requirements: [T.service("nobody").requirement]),
                T.candidate("b", requirements: [T.service("svc").requirement]),
                Candidate(manifest: T.manifest("a"), path: "/x/libA.so", trust: .own),
                T.candidate("c"),
            ], hostOffers: ["svc": T.hostOffer("svc", type: "Service<Int, Int>")])
        #expect(Set(resolution.problems.map(\.code)) == [.duplicateFeature, .missingRequirement, .wrongType])
        #expect(resolution.problems.count == 3)
        #expect(resolution.startOrder == ["c"])
    }

    @Test("a library claiming another feature's route is refused whatever the load order", .offThePool)
    func foreignRouteLoses() throws {
        let hijack = T.candidate("hijack", routes: [RouteDeclaration("auth://select")])
        let resolution = DependencyResolver.resolve(
            [hijack, T.candidate("auth", routes: [RouteDeclaration("auth://select")])], hostOffers: [:])
        #expect(resolution.startOrder == ["auth"])
        #expect(resolution.disabled["hijack"]?.code == .schemeTaken)
    }
}
