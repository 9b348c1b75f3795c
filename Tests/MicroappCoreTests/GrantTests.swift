import MicroappCore
import MicroappSDK
import TestScratch
import Testing

@Suite("Grants: services and state are granted, never only offered")
struct GrantTests {
    typealias T = TestManifests

    static let deleteAccount = T.service("auth.delete-account")
    static let recent = T.service("search.recent", optional: true)
    static let catalog = T.service("characters.page")
    static let session = DependencyKey<Session?>.session(access: .read)
    static let offers: [String: Offer] = [
        "auth.delete-account": T.hostOffer("auth.delete-account"),
        "search.recent": T.hostOffer("search.recent"),
        "characters.page": T.hostOffer("characters.page"),
        "session": T.hostOffer("session", type: session.typeName, access: .readWrite),
    ]
    static let rules = ResolutionRules(
        grants: GrantRules(keys: [
            "auth.delete-account": .only("settings"),
            "characters.page": .public,
            "session": .publicReadOnly(writers: ["auth"]),
        ]))

    static func candidate(_ id: String, trust: FeatureTrust, requirements: [Requirement]) -> Candidate {
        Candidate(manifest: T.manifest(id, requirements: requirements), path: "/plugins/lib\(id).so", trust: trust)
    }

    @Test(
        "an untrusted feature gets what is public, and a required key it was not granted keeps it from starting",
        .offThePool)
    func untrustedRequired() throws {
        let intruder = Self.candidate(
            "intruder", trust: .untrusted,
            requirements: [Self.catalog.requirement, Self.session.requirement, Self.deleteAccount.requirement])
        let resolution = DependencyResolver.resolve([intruder], hostOffers: Self.offers, rules: Self.rules)
        let problem = try #require(resolution.disabled["intruder"])
        #expect(problem.code == .notGranted)
        #expect(problem.subject == "intruder")
        #expect(problem.reason.contains("auth.delete-account"))
        #expect(problem.reason.contains("settings only"))
        #expect(problem.fix.contains("--grant intruder=auth.delete-account"))
        #expect(problem.fix.contains("\"grants\""))
        #expect(resolution.startOrder.isEmpty)
        let states = resolution.requirements["intruder"]?.map(\.state)
        #expect(states == [.ok, .ok, .notGranted])
    }

    @Test(
        "an optional key not granted is a problem, the feature starts, and the runtime's table withholds the key",
        .offThePool)
    func untrustedOptional() throws {
        let intruder = Self.candidate("intruder", trust: .untrusted, requirements: [Self.recent.requirement])
        let resolution = DependencyResolver.resolve([intruder], hostOffers: Self.offers, rules: Self.rules)
        #expect(resolution.startOrder == ["intruder"])
        let problem = try #require(resolution.problems.first)
        #expect(problem.code == .notGranted)
        #expect(problem.reason.contains("runs without it"))
        let table = try #require(resolution.grants)
        #expect(!table.allows(Self.recent.requirement, to: "intruder"))
    }

    @Test(
        "a key the host does not name is for the repository's own features and pinned folders, never untrusted ones",
        .offThePool)
    func defaultRule() {
        let rule = GrantRule.default
        #expect(rule.access(for: "x", trust: .own) != nil)
        #expect(rule.access(for: "x", trust: .pinned) != nil)
        #expect(rule.access(for: "x", trust: .untrusted) == nil)
        for trust in FeatureTrust.allCases {
            let feature = Self.candidate("f", trust: trust, requirements: [Self.recent.requirement])
            let resolution = DependencyResolver.resolve([feature], hostOffers: Self.offers, rules: Self.rules)
            #expect(resolution.problems.isEmpty == (trust != .untrusted), "\(trust)")
        }
    }

    @Test(
        "a feature named by the rule gets the key once its library is pinned or own; named but untrusted, or unnamed but own, it does not",
        .offThePool
    )
    func namedFeature() throws {
        let requirement = [Self.deleteAccount.requirement]
        func problems(_ id: String, _ trust: FeatureTrust) -> [Problem] {
            DependencyResolver.resolve(
                [Self.candidate(id, trust: trust, requirements: requirement)], hostOffers: Self.offers,
                rules: Self.rules
            ).problems
        }
        #expect(problems("settings", .pinned).isEmpty)
        #expect(problems("settings", .own).isEmpty)
        let impostor = try #require(problems("settings", .untrusted).first)
        #expect(impostor.code == .notGranted)
        #expect(impostor.reason.contains("an untrusted library could take any id"))
        #expect(problems("characters", .own).map(\.code) == [.notGranted])
    }

    @Test("state public read-only may be read by anyone, written only by the features named", .offThePool)
    func publicReadOnly() {
        let write = DependencyKey<Session?>.session(access: .readWrite).requirement
        let reader = DependencyResolver.resolve(
            [Self.candidate("reader", trust: .untrusted, requirements: [Self.session.requirement])],
            hostOffers: Self.offers, rules: Self.rules)
        #expect(reader.problems.isEmpty)
        let writer = DependencyResolver.resolve(
            [Self.candidate("mallory", trust: .own, requirements: [write])], hostOffers: Self.offers,
            rules: Self.rules)
        #expect(writer.problems.map(\.code) == [.notGranted])
        let owner = DependencyResolver.resolve(
            [Self.candidate("auth", trust: .own, requirements: [write])], hostOffers: Self.offers, rules: Self.rules)
        #expect(owner.problems.isEmpty)
    }

    @Test("an explicit grant gives the key by name to that feature only", .offThePool)
    func explicitGrant() {
        var rules = Self.rules
        rules.grants.grant("auth.delete-account", to: "intruder")
        let requirement = [Self.deleteAccount.requirement]
        let resolution = DependencyResolver.resolve(
            [
                Self.candidate("intruder", trust: .untrusted, requirements: requirement),
                Self.candidate("other", trust: .untrusted, requirements: requirement),
            ], hostOffers: Self.offers, rules: rules)
        #expect(resolution.startOrder == ["intruder"])
        #expect(resolution.disabled["other"]?.code == .notGranted)
        #expect(resolution.requirements["intruder"]?.first?.grant?.basis == .explicit)
    }

    @Test(
        "a service a feature provides follows the default rule: an untrusted caller is refused, its own use is not",
        .offThePool)
    func providedService() {
        let summary = T.service("search.summary")
        let resolution = DependencyResolver.resolve(
            [
                Self.candidate("search", trust: .own, requirements: []),
                Self.candidate("intruder", trust: .untrusted, requirements: [summary.requirement]),
                Self.candidate("settings", trust: .pinned, requirements: [summary.requirement]),
            ].map { candidate in
                var candidate = candidate
                if candidate.manifest.id == "search" { candidate.manifest.provides = [Provision(summary)] }
                return candidate
            }, hostOffers: [:], rules: Self.rules)
        #expect(resolution.disabled["intruder"]?.code == .notGranted)
        #expect(resolution.disabled["settings"] == nil)
    }

    @Test("a requirement nobody offers stays missing, not refused: there is nothing to grant", .offThePool)
    func unofferedIsMissing() {
        let resolution = DependencyResolver.resolve(
            [Self.candidate("intruder", trust: .untrusted, requirements: [T.service("nobody.has").requirement])],
            hostOffers: Self.offers, rules: Self.rules)
        #expect(resolution.problems.map(\.code) == [.missingRequirement])
    }

    @Test("the container a feature is given does not hold a key it was not granted, and holds the ones it was")
    @MainActor
    func containerWithholds() throws {
        let container = Container()
        container.provide(Self.recent, Service { _ in Nothing() })
        container.provide(Self.catalog, Service { _ in Nothing() })
        let manifest = T.manifest("intruder", requirements: [Self.recent.requirement, Self.catalog.requirement])
        let resolution = DependencyResolver.resolve(
            [Candidate(manifest: manifest, path: "/plugins/libintruder.so", trust: .untrusted)],
            hostOffers: container.offers, rules: Self.rules)
        let dependencies = FeatureDependencies(container: container, manifest: manifest, grants: resolution.grants)
        #expect(dependencies.value(for: Self.recent.requirement) == nil)
        #expect(dependencies.value(for: Self.catalog.requirement) is ErasedService)
    }
}
