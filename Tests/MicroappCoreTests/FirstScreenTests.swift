import MicroappCore
import MicroappSDK
import TestScratch
import Testing

@Suite("The first screen's features: what a start forks early is where the router lands, signed in or out")
struct FirstScreenTests {
    /// A sign-in feature, a feature whose routes need a session, and one whose route does not.
    static let table = RouteTable([
        TestManifests.manifest(
            "auth", routes: [RouteDeclaration("auth://select", isSignIn: true), RouteDeclaration("auth://sign-in")]),
        TestManifests.manifest(
            "characters",
            routes: [
                RouteDeclaration("characters://list", requiresSession: true),
                RouteDeclaration("characters://detail/{id}", requiresSession: true),
            ]),
        TestManifests.manifest("about", routes: [RouteDeclaration("about://home")]),
    ])

    @Test(
        "a route that needs a session names the sign-in feature first, then its own; others only their own; none for an unknown route",
        .offThePool)
    func guesses() {
        #expect(Self.table.firstScreenFeatures(opening: "characters://list") == ["auth", "characters"])
        #expect(Self.table.firstScreenFeatures(opening: "characters://detail/7") == ["auth", "characters"])
        #expect(Self.table.firstScreenFeatures(opening: "about://home") == ["about"])
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
        arguments: ["characters://list", "characters://detail/7", "about://home", "auth://select", "auth://sign-in"],
        [true, false])
    func guessesHoldTheRoutersLanding(url: String, signedIn: Bool) {
        var router = Router(table: Self.table)
        _ = router.open(url, signedIn: signedIn)
        let landed = router.top?.feature
        #expect(landed != nil && Self.table.firstScreenFeatures(opening: url).contains(landed!))
    }
}
