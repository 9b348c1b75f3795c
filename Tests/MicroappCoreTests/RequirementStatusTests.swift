import MicroappCore
import MicroappSDK
import TestScratch
import Testing

@Suite("Requirement verdicts")
struct RequirementStatusTests {
    typealias T = TestManifests

    /// The verdicts of `feature`'s requirements, as `key: state`.
    static func states(_ resolution: Resolution, _ feature: String) -> [String] {
        (resolution.requirements[feature] ?? []).map { "\($0.requirement.key): \($0.state.rawValue)" }
    }

    @Test(
        "the resolver gives every requirement a verdict with its provider: ok, missing, optional, type, access",
        .offThePool)
    func verdicts() throws {
        let session = DependencyKey<Session?>.session(access: .readWrite)
        let resolution = DependencyResolver.resolve(
            [
                T.candidate(
                    "a",
                    requirements: [
                        T.service("found").requirement, T.service("nowhere").requirement,
                        T.service("extra", optional: true).requirement, T.service("typed").requirement,
                        session.requirement,
                    ])
            ],
            hostOffers: [
                "found": T.hostOffer("found"), "typed": T.hostOffer("typed", type: "Service<Int, String>"),
                "session": T.hostOffer("session", type: session.typeName, access: .read),
            ])
        #expect(
            Self.states(resolution, "a") == [
                "found: ok", "nowhere: missing", "extra: optional-missing", "typed: wrong-type",
                "session: wrong-access",
            ])
        #expect(resolution.requirements["a"]?.map(\.provider) == ["host", nil, nil, "host", "host"])
    }

    @Test(
        "requirements around a cycle are marked cycle, and a need met by a disabled feature provider-disabled",
        .offThePool)
    func cycleAndDisabledProvider() {
        let x = T.service("x")
        let y = T.service("y")
        let z = T.service("z")
        let resolution = DependencyResolver.resolve(
            [
                T.candidate("a", requirements: [y.requirement], provides: [Provision(x)]),
                T.candidate("b", requirements: [x.requirement], provides: [Provision(y)]),
                T.candidate("c", requirements: [T.service("gone").requirement], provides: [Provision(z)]),
                T.candidate("d", requirements: [z.requirement]),
            ], hostOffers: [:])
        #expect(Self.states(resolution, "a") == ["y: cycle"])
        #expect(Self.states(resolution, "b") == ["x: cycle"])
        #expect(Self.states(resolution, "d") == ["z: provider-disabled"])
        #expect(resolution.requirements["d"]?.first?.provider == "c")
    }
}
