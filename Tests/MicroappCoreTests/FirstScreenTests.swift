import MicroappCore
import MicroappSDK
import TestScratch
import Testing

@Suite("The first screen's features: what a start forks early is where the router lands, signed in or out")
struct FirstScreenTests {
    /// A sign-in feature and one whose routes need a session but one (`RouterTests.table`).
    static let table = RouterTests.table

    @Test(
        "a route that needs a session names the sign-in feature first, then its own; others only their own; none for an unknown route",
        .offThePool)
    func guesses() {
        #expect(Self.table.firstScreenFeatures(opening: "characters://list") == ["auth", "characters"])
        #expect(Self.table.firstScreenFeatures(opening: "characters://detail/7") == ["auth", "characters"])
        #expect(Self.table.firstScreenFeatures(opening: "characters://detail/random") == ["characters"])
        #expect(Self.table.firstScreenFeatures(opening: "auth://sign-in") == ["auth"])
        #expect(Self.table.firstScreenFeatures(opening: "nowhere://home").isEmpty)
        // Without a sign-in route, a route that needs a session lands on its own feature (or a stub).
        let alone = RouteTable([
            TestManifests.manifest("characters", routes: [RouteDeclaration("characters://list", requiresSession: true)])
        ])
        #expect(alone.firstScreenFeatures(opening: "characters://list") == ["characters"])
    }

    @Test(
        "for every route, signed in and signed out, the feature the router puts on top is one of the guesses",
        .offThePool,
        arguments: [
            "characters://list", "characters://detail/7", "characters://detail/random", "auth://select",
            "auth://sign-in",
        ],
        [true, false])
    func guessesHoldTheRoutersLanding(url: String, signedIn: Bool) {
        var router = Router(table: Self.table)
        _ = router.open(url, signedIn: signedIn)
        let landed = router.top?.feature
        #expect(landed != nil && Self.table.firstScreenFeatures(opening: url).contains(landed!))
    }
}
