import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import TestPlugins
import Testing

/// Real libraries with valid descriptors whose manifests conflict: every one loads, and the resolver (from
/// manifests alone, before any `register_feature` runs) disables the unsound ones and reports each problem.
/// Requirement problems name the feature id as `subject` (the path is in the load report); duplicate ids and
/// route conflicts name the file.
@Suite("Resolving a plugin set reports every conflict and keeps the sound features")
@MainActor
struct ResolverRefusalTests {
    typealias M = Manifests

    /// Loads the fixtures and the real plugins in one call; every file must load.
    func resolve(
        _ fixtures: [String], realFirst: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Resolution {
        let paths = realFirst ? Paths.realPlugins + fixtures : fixtures + Paths.realPlugins
        let (report, resolution) = await Host.loadAndResolve(paths)
        #expect(report.problems.isEmpty, "every fixture loads: \(report.problems)", sourceLocation: sourceLocation)
        Host.expectRealPluginsUnaffected(report, resolution, sourceLocation: sourceLocation)
        return resolution
    }

    /// `Manifests.plugin`, compiled on a thread of its own: this suite runs on the main actor, which a compiler run
    /// must not hold (every other main-actor test of the process waits for it; a full run's Search tests timed out).
    func plugin(
        _ id: String, name: String? = nil, routes: [String]? = nil, requirements: [Requirement] = [],
        provides: [Provision] = []
    ) async throws -> String {
        try await fixture {
            try M.plugin(id, name: name, routes: routes, requirements: requirements, provides: provides)
        }
    }

    // MARK: Identity and routes

    @Test("two libraries with the same feature id: the second is refused, naming both files")
    func duplicateID() async throws {
        let first = try await plugin("twin", name: "TwinOne")
        let second = try await plugin("twin", name: "TwinTwo")
        let resolution = await resolve([first, second])
        let problem = try #require(resolution.problems.only)
        #expect(problem.code == .duplicateFeature)
        #expect(problem.subject == second)
        expectMentions(problem, reason: ["'twin'", first], fix: ["load only one"])
        #expect(resolution.startOrder.contains("twin"), "the first one still starts")
    }

    @Test("a library that reuses the real auth id is refused as the second, and the real Auth still starts")
    func duplicateOfRealAuth() async throws {
        let realAuth = try #require(Paths.realPlugins.first { $0.hasSuffix("/libAuth.so") })
        let impostor = try await plugin("auth", name: "AuthImpostor", routes: ["auth://elsewhere"])
        let resolution = await resolve([impostor], realFirst: true)
        let problem = try #require(resolution.problems.only)
        #expect(problem.code == .duplicateFeature)
        #expect(problem.subject == impostor)
        expectMentions(problem, reason: ["'auth'", realAuth])
        #expect(resolution.disabled["auth"] == nil)
    }

    /// Two routes of one library that match the same URL (`rc://item/{id}` and `rc://{kind}/new`, equally specific).
    @Test("two overlapping routes within one library are a route conflict that disables it")
    func routeConflictWithinFeature() async throws {
        let path = try await plugin("rc", routes: ["rc://item/{id}", "rc://{kind}/new"])
        let resolution = await resolve([path])
        let problem = try #require(resolution.problems.only)
        #expect(problem.code == .routeConflict)
        #expect(problem.subject == path)
        expectMentions(problem, reason: ["rc://{kind}/new", "rc://item/{id}"], fix: ["distinct literal segment"])
        #expect(resolution.disabled["rc"] != nil)
    }

    /// What was found: two libraries with the same id never get as far as a route check (the resolver drops the
    /// second of a duplicate id first), so their overlapping routes show up as a duplicate id. Between features of
    /// different ids, a conflict needs a route outside a feature's own scheme, which manifests may declare since
    /// d061754: see `routeHijack` (the foreign claim loses, whatever the load order) and the `Candidate` test.
    @Test("overlapping routes in two libraries of the same id are reported as a duplicate id, not a route conflict")
    func routeConflictAcrossLibraries() async throws {
        let first = try await plugin("rx", name: "RouteOne", routes: ["rx://a/{id}"])
        let second = try await plugin("rx", name: "RouteTwo", routes: ["rx://a/1"])
        let resolution = await resolve([first, second])
        #expect(resolution.problems.map(\.code) == [.duplicateFeature])
        #expect(resolution.problems.first?.subject == second)
    }

    /// A library loaded before the real Auth declares one of Auth's own routes. Before 06d3ffe the first claim
    /// won, so this library disabled the real Auth (route conflict on Auth's side); now claims in a feature's own
    /// scheme go first and the foreign claim is the one refused.
    @Test("a library claiming a route of the real Auth is refused, and the real Auth still starts")
    func routeHijack() async throws {
        let realAuth = try #require(Paths.realPlugins.first { $0.hasSuffix("/libAuth.so") })
        let authRoute = try PluginLoader.load(realAuth).get().manifest.routes[0].pattern
        let hijacker = try await plugin("hijack", name: "Hijack", routes: ["hijack://home", authRoute])
        let (report, resolution) = await Host.loadAndResolve([hijacker] + Paths.realPlugins)
        Host.expectRealPluginsUnaffected(report, resolution)
        let problem = try #require(
            (report.problems + resolution.problems).first { $0.subject == hijacker || $0.subject == "hijack" },
            "nothing refused the library declaring \(authRoute): \(resolution.problems.map(\.description))")
        #expect([Problem.Code.badManifest, .schemeTaken].contains(problem.code))
        #expect(problem.subject == hijacker)
        expectMentions(problem, reason: [authRoute])
        #expect(!resolution.startOrder.contains("hijack"))
    }

    @Test("routes of two different features in one scheme: the first keeps the scheme, the others are scheme-taken")
    func routeConflictAcrossCandidates() throws {
        let resolution = DependencyResolver.resolve(
            [
                Candidate(
                    manifest: M.manifest("a", routes: ["shared://x/{id}"]), path: "/plugins/libA.so", trust: .own),
                Candidate(manifest: M.manifest("b", routes: ["shared://x/1"]), path: "/plugins/libB.so", trust: .own),
                Candidate(
                    manifest: M.manifest("c", routes: ["shared://x/1/more"]), path: "/plugins/libC.so", trust: .own),
            ], hostOffers: [:])
        #expect(resolution.problems.map(\.code) == [.schemeTaken, .schemeTaken])
        let problem = try #require(resolution.problems.first)
        #expect(problem.subject == "/plugins/libB.so")
        expectMentions(problem, reason: ["'shared://x/1' of b", "/plugins/libA.so"])
        #expect(resolution.startOrder == ["a"])
    }

    // MARK: Requirements

    @Test("a missing requirement is refused with the chain ending in ← provided by nobody")
    func missingRequirement() async throws {
        let path = try await plugin("needy", requirements: [M.requirement("nowhere.service")])
        let resolution = await resolve([path])
        let problem = try #require(resolution.problems.only)
        #expect(problem.code == .missingRequirement)
        #expect(problem.subject == "needy")
        expectMentions(
            problem, reason: ["needy needs nowhere.service (read, Service<Nothing, Nothing>) ← provided by nobody"],
            fix: ["register 'nowhere.service'", "mark the requirement optional"])
        #expect(resolution.disabled["needy"]?.code == .missingRequirement)
    }

    @Test("an optional requirement nobody provides is not a problem")
    func optionalRequirement() async throws {
        let path = try await plugin("relaxed", requirements: [M.requirement("nowhere.service", optional: true)])
        let resolution = await resolve([path])
        #expect(resolution.problems.isEmpty, "\(resolution.problems)")
        #expect(resolution.startOrder.contains("relaxed"))
    }

    @Test("a requirement of the wrong type is refused, naming what the host provides")
    func wrongType() async throws {
        let path = try await plugin(
            "mistyped", requirements: [M.requirement("session", type: "Int", kind: .state, access: .read)])
        let resolution = await resolve([path])
        let problem = try #require(resolution.problems.only)
        #expect(problem.code == .wrongType)
        #expect(problem.subject == "mistyped")
        expectMentions(
            problem, reason: ["mistyped needs session (read, Int)", "host provides it as state Optional<Session>"],
            fix: ["agree on the type of 'session'"])
    }

    @Test("a service asked for as state is refused as the wrong type")
    func wrongKind() async throws {
        let path = try await plugin(
            "kindless",
            requirements: [M.requirement("auth.sign-in", type: "Service<Credentials, Session>", kind: .state)])
        let resolution = await resolve([path])
        let problem = try #require(resolution.problems.only)
        #expect(problem.code == .wrongType)
        expectMentions(problem, reason: ["host provides it as service"])
    }

    @Test("asking read-write for state the host shares read-only is wrong access")
    func wrongAccess() async throws {
        let path = try await plugin(
            "writer", requirements: [M.requirement(Host.counter.id, type: "Int", kind: .state, access: .readWrite)])
        let resolution = await resolve([path])
        let problem = try #require(resolution.problems.only)
        #expect(problem.code == .wrongAccess)
        #expect(problem.subject == "writer")
        expectMentions(
            problem, reason: ["writer needs host.counter (readWrite, Int)", "host shares it read-only"],
            fix: ["ask for read access"])
    }

    // MARK: Providers

    @Test("two libraries providing the same service: the second is a duplicate provider")
    func duplicateProvider() async throws {
        let first = try await plugin("echo-one", provides: [M.provision("echo.run")])
        let second = try await plugin("echo-two", provides: [M.provision("echo.run")])
        let resolution = await resolve([first, second])
        let problem = try #require(resolution.problems.only)
        #expect(problem.code == .duplicateProvider)
        #expect(problem.subject == "echo-two")
        expectMentions(
            problem, reason: ["echo-two provides echo.run, which echo-one already provides"],
            fix: ["keep one provider of 'echo.run'"])
        #expect(resolution.startOrder.contains("echo-one"))
    }

    @Test("a library providing a service the host already offers is a duplicate provider")
    func duplicateOfHostService() async throws {
        let path = try await plugin(
            "shadow", provides: [M.provision("auth.sign-in", type: "Service<Credentials, Session>")])
        let resolution = await resolve([path])
        let problem = try #require(resolution.problems.only)
        #expect(problem.code == .duplicateProvider)
        expectMentions(problem, reason: ["shadow provides auth.sign-in, which host already provides"])
    }

    @Test("two features needing each other's services form a cycle, and the reason shows the chain")
    func cycle() async throws {
        let paths = try await cyclePair()
        let resolution = await resolve(paths)
        #expect(resolution.problems.map(\.code) == [.cycle, .cycle])
        #expect(Set(resolution.problems.map(\.subject)) == ["cyc-a", "cyc-b"])
        for problem in resolution.problems {
            expectMentions(
                problem,
                reason: ["cyc-a needs b.svc ← provided by cyc-b", "cyc-b needs a.svc ← provided by cyc-a"],
                fix: ["break the cycle"])
        }
        #expect(!resolution.startOrder.contains("cyc-a") && !resolution.startOrder.contains("cyc-b"))
    }

    @Test("a feature whose provider is disabled is disabled too, with the provider's reason")
    func providerDisabled() async throws {
        let paths = try await providerDisabledPair()
        let resolution = await resolve(paths)
        #expect(resolution.problems.map(\.code) == [.missingRequirement, .providerDisabled])
        let problem = try #require(resolution.disabled["pd-consumer"])
        #expect(problem.code == .providerDisabled)
        #expect(problem.subject == "pd-consumer")
        expectMentions(
            problem,
            reason: [
                "pd-consumer needs pd.svc (read) ← provided by pd-provider, which is disabled",
                "missing-requirement", "pd.missing",
            ],
            fix: ["fix pd-provider first"])
    }

    // MARK: All at once

    @Test("several problems in one set are all reported by one resolve call")
    func severalProblems() async throws {
        let paths =
            [
                try await plugin("needy", requirements: [M.requirement("nowhere.service")]),
                try await plugin("mistyped", requirements: [M.requirement("session", type: "Int", kind: .state)]),
                try await plugin(
                    "writer",
                    requirements: [M.requirement(Host.counter.id, type: "Int", kind: .state, access: .readWrite)]
                ),
                try await plugin("twin", name: "TwinOne"),
                try await plugin("twin", name: "TwinTwo"),
                try await plugin("rc", routes: ["rc://item/{id}", "rc://{kind}/new"]),
            ] + (try await cyclePair()) + (try await providerDisabledPair()) + [try await plugin("healthy")]
        let resolution = await resolve(paths)
        let expected: [Problem.Code] = [
            .duplicateFeature, .routeConflict, .missingRequirement, .wrongType, .wrongAccess, .missingRequirement,
            .cycle, .cycle, .providerDisabled,
        ]
        #expect(resolution.problems.count == 9, "\(resolution.problems.map(\.description))")
        #expect(resolution.problems.map(\.code) == expected)
        #expect(
            Set(resolution.disabled.keys)
                == ["needy", "mistyped", "writer", "rc", "cyc-a", "cyc-b", "pd-provider", "pd-consumer"])
        #expect(resolution.startOrder.contains("twin") && resolution.startOrder.contains("healthy"))
    }

    // MARK: Fixture sets

    /// `cyc-a` needs `b.svc` from `cyc-b`, which needs `a.svc` from `cyc-a`.
    func cyclePair() async throws -> [String] {
        [
            try await plugin(
                "cyc-a", requirements: [M.requirement("b.svc")], provides: [M.provision("a.svc", uses: ["b.svc"])]),
            try await plugin(
                "cyc-b", requirements: [M.requirement("a.svc")], provides: [M.provision("b.svc", uses: ["a.svc"])]),
        ]
    }

    /// `pd-provider` lacks `pd.missing`, so `pd-consumer`, which needs its `pd.svc`, cannot start either.
    func providerDisabledPair() async throws -> [String] {
        [
            try await plugin(
                "pd-provider", requirements: [M.requirement("pd.missing")], provides: [M.provision("pd.svc")]),
            try await plugin("pd-consumer", requirements: [M.requirement("pd.svc")]),
        ]
    }
}

extension Array {
    /// The one element, or nil when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}
