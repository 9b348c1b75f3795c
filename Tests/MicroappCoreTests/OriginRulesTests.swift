import MicroappCore
import MicroappSDK
import TestScratch
import Testing

/// Whose screen it is: route schemes and the names people see belong to one feature each.
@Suite("Origin: schemes and names belong to one feature")
struct OriginRulesTests {
    static func candidate(
        _ id: String, name: String? = nil, tab: String? = nil, routes: [String]? = nil, trust: FeatureTrust = .own
    ) -> Candidate {
        var manifest = FeatureManifest(
            id: id, version: 1, displayName: name ?? id.capitalized,
            routes: (routes ?? ["\(id)://home"]).map { RouteDeclaration($0) })
        if let tab { manifest.tab = TabDeclaration(title: tab, route: manifest.routes[0].pattern, order: 0) }
        return Candidate(manifest: manifest, path: "/plugins/lib\(id.capitalized).so", trust: trust)
    }

    static let demoRules = ResolutionRules(
        reservedSchemes: ["auth": "auth"], reservedNames: ["Auth": "auth", "Settings": "settings"])

    @Test(
        "a route in another feature's scheme is refused as scheme-taken, naming both, whatever the load order",
        .offThePool)
    func schemeTaken() throws {
        let impostor = Self.candidate("impostor", routes: ["impostor://home", "auth://verify"], trust: .untrusted)
        for order in [[impostor, Self.candidate("auth")], [Self.candidate("auth"), impostor]] {
            let resolution = DependencyResolver.resolve(order, hostOffers: [:])
            let problem = try #require(resolution.disabled["impostor"])
            #expect(problem.code == .schemeTaken)
            #expect(problem.subject == "/plugins/libImpostor.so")
            #expect(problem.reason.contains("auth://verify") && problem.reason.contains("/plugins/libAuth.so"))
            #expect(problem.fix.contains("impostor://"))
            #expect(resolution.startOrder == ["auth"])
        }
    }

    @Test("among features that are not the scheme's own, the more trusted keeps it, then the earlier", .offThePool)
    func moreTrustedThenEarlier() {
        let resolution = DependencyResolver.resolve(
            [
                Self.candidate("early", routes: ["shared://a"], trust: .untrusted),
                Self.candidate("pinned", routes: ["shared://b"], trust: .pinned),
                Self.candidate("late", routes: ["shared://c"], trust: .pinned),
            ], hostOffers: [:])
        #expect(resolution.startOrder == ["pinned"])
        #expect(resolution.disabled["early"]?.code == .schemeTaken)
        #expect(resolution.disabled["late"]?.reason.contains("pinned") == true)
    }

    @Test("a scheme the host reserves is refused to any other feature even when its owner is not loaded", .offThePool)
    func reservedScheme() throws {
        let impostor = Self.candidate("impostor", routes: ["impostor://home", "auth://verify"])
        let alone = DependencyResolver.resolve([impostor], hostOffers: [:], rules: Self.demoRules)
        let problem = try #require(alone.disabled["impostor"])
        #expect(problem.code == .schemeTaken)
        #expect(problem.reason.contains("reserves"))
        // The owner is an id a library says of itself: only the repository's own or a pinned copy keeps it; one from
        // an untrusted folder calling itself auth (Auth not loaded) is refused the scheme.
        let copiedAuth = Self.candidate("auth", routes: ["auth://verify"], trust: .untrusted)
        let untrusted = DependencyResolver.resolve([copiedAuth], hostOffers: [:], rules: Self.demoRules)
        #expect(untrusted.disabled["auth"]?.code == .schemeTaken)
        let pinnedAuth = Self.candidate("auth", routes: ["auth://verify"], trust: .pinned)
        #expect(DependencyResolver.resolve([pinnedAuth], hostOffers: [:], rules: Self.demoRules).problems.isEmpty)
        #expect(
            DependencyResolver.resolve([Self.candidate("auth")], hostOffers: [:], rules: Self.demoRules).problems
                .isEmpty)
    }

    @Test(
        "display names and tab titles are unique: the later or less trusted one is refused as name-taken", .offThePool)
    func nameClash() throws {
        let first = DependencyResolver.resolve(
            [Self.candidate("one", name: "Notes"), Self.candidate("two", name: "notes ")], hostOffers: [:])
        #expect(first.startOrder == ["one"])
        let problem = try #require(first.disabled["two"])
        #expect(problem.code == .nameTaken)
        #expect(problem.reason.contains("/plugins/libOne.so"))

        let trusted = DependencyResolver.resolve(
            [Self.candidate("stray", name: "Notes", trust: .untrusted), Self.candidate("notes")], hostOffers: [:])
        #expect(trusted.startOrder == ["notes"])
        #expect(trusted.disabled["stray"]?.code == .nameTaken)

        let tab = DependencyResolver.resolve(
            [Self.candidate("characters"), Self.candidate("lurker", tab: "Characters")], hostOffers: [:])
        #expect(tab.disabled["lurker"]?.reason.contains("tab title") == true)
    }

    @Test(
        "a name the host reserves is refused to anything less trusted, even when its owner is not loaded", .offThePool)
    func reservedName() throws {
        let impostor = Self.candidate("impostor", name: "Settings", tab: "Settings", trust: .untrusted)
        let resolution = DependencyResolver.resolve([impostor], hostOffers: [:], rules: Self.demoRules)
        let problem = try #require(resolution.disabled["impostor"])
        #expect(problem.code == .nameTaken)
        #expect(problem.reason.contains("Settings") && problem.reason.contains("reserves"))
        let real = DependencyResolver.resolve(
            [impostor, Self.candidate("settings", tab: "Settings")], hostOffers: [:], rules: Self.demoRules)
        #expect(real.startOrder == ["settings"])
    }

    @Test(
        "the sign-in route and the session's write access the host names by id go to that id only from a trusted library: alone or not, an untrusted 'auth' or a stray sign-in route is refused",
        .offThePool)
    func namedOwnersNeedTrust() throws {
        let rules = ResolutionRules(stateOwners: ["session": "auth"], signInFeature: "auth")
        func signInFeature(_ id: String, trust: FeatureTrust) -> Candidate {
            let manifest = FeatureManifest(
                id: id, version: 1, displayName: id.capitalized,
                routes: [RouteDeclaration("\(id)://sign-in", isSignIn: true)],
                requirements: [DependencyKey<Session?>.state("session", access: .readWrite).requirement])
            return Candidate(manifest: manifest, path: "/plugins/lib\(id.capitalized).so", trust: trust)
        }
        for trust in [FeatureTrust.own, .pinned] {
            let problems = DependencyResolver.resolve(
                [signInFeature("auth", trust: trust)], hostOffers: [:], rules: rules
            ).problems
            #expect(
                !problems.contains { [.secondSignIn, .secondOwner].contains($0.code) }, "the named owner, \(trust)")
        }
        let impostor = DependencyResolver.resolve(
            [signInFeature("auth", trust: .untrusted)], hostOffers: [:], rules: rules)
        #expect(impostor.disabled["auth"]?.code == .secondSignIn)
        #expect(impostor.disabled["auth"]?.reason.contains("untrusted folder") == true)
        let stray = DependencyResolver.resolve([signInFeature("phish", trust: .own)], hostOffers: [:], rules: rules)
        #expect(stray.disabled["phish"]?.code == .secondSignIn, "alone, Auth not loaded: still not the sign-in route")
    }
}
