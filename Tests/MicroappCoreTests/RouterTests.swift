import MicroappCore
import MicroappSDK
import TestScratch
import Testing

@Suite("Router")
struct RouterTests {
    static let table = RouteTable([
        TestManifests.manifest(
            "auth", routes: [RouteDeclaration("auth://select", isSignIn: true), RouteDeclaration("auth://sign-in")]),
        TestManifests.manifest(
            "characters",
            routes: [
                RouteDeclaration("characters://list", requiresSession: true),
                RouteDeclaration("characters://detail/{id}", requiresSession: true),
                RouteDeclaration("characters://detail/random"),
            ]),
    ])

    @Test("a literal route beats a parameter route for the same URL", .offThePool)
    func literalWins() throws {
        #expect(
            Self.table.match("characters://detail/random")?.entry.pattern.description == "characters://detail/random")
        let match = try #require(Self.table.match("characters://detail/7"))
        #expect(match.location.parameters == ["id": "7"])
    }

    @Test("a guarded route sends a signed-out person to sign-in and continues there after signing in", .offThePool)
    func guardRedirectsAndContinues() {
        var router = Router(table: Self.table)
        let notice = router.open("characters://detail/2", signedIn: false)
        #expect(notice?.code == "redirect")
        #expect(router.top == .feature("auth", Location(url: "auth://select", pattern: "auth://select")))
        #expect(router.pendingAfterSignIn == "characters://detail/2")
        _ = router.open("auth://sign-in", signedIn: false)
        #expect(router.didSignIn(home: "characters://list") == "characters://detail/2")
        #expect(router.stack.isEmpty)
        #expect(router.pendingAfterSignIn == nil)
    }

    @Test("signing in with nothing pending continues home", .offThePool)
    func signInGoesHome() {
        var router = Router(table: Self.table)
        _ = router.open("auth://select", signedIn: false)
        #expect(router.didSignIn(home: "characters://list") == "characters://list")
    }

    @Test(
        "signing out drops guarded screens and forgets where they were: the next sign-in goes home, not back there",
        .offThePool)
    func signOut() {
        var router = Router(table: Self.table)
        _ = router.open("characters://list", signedIn: true)
        _ = router.open("characters://detail/3", signedIn: true)
        router.didSignOut()
        #expect(router.stack.isEmpty)
        _ = router.open("characters://detail/3", signedIn: false)
        router.didSignOut()
        #expect(router.pendingAfterSignIn == nil, "a redirect pending before sign-out is dropped too")
    }

    @Test("an unknown route becomes a problem screen naming the routes the feature has", .offThePool)
    func unknownRoute() throws {
        var router = Router(table: Self.table)
        let opened = router.open("characters://nowhere", signedIn: true)
        let notice = try #require(opened)
        #expect(notice.level == .error)
        #expect(notice.message.contains("characters://list"))
        guard case .problem(let url, let problem) = router.top else {
            Issue.record("expected a problem screen, got \(String(describing: router.top))")
            return
        }
        #expect(url == "characters://nowhere")
        #expect(problem.fix.contains("microapp routes"))
        let malformed = router.open("not a url", signedIn: true)
        #expect(malformed?.message.contains("not a route URL") == true)
    }

    @Test("back stops at the first screen and popToRoot stays inside the feature", .offThePool)
    func backAndPopToRoot() {
        var router = Router(table: Self.table)
        _ = router.open("auth://select", signedIn: true)
        _ = router.open("characters://list", signedIn: true)
        _ = router.open("characters://detail/1", signedIn: true)
        _ = router.open("characters://detail/2", signedIn: true)
        router.popToRoot(of: "characters")
        #expect(router.stack.map(\.url) == ["auth://select", "characters://list"])
        let wentBack = router.back()
        let wentBackAgain = router.back()
        #expect(wentBack)
        #expect(!wentBackAgain)
        #expect(router.stack.map(\.url) == ["auth://select"])
    }
}

@Suite("Router: problem screens")
struct RouterProblemTests {
    @Test("a URL that cannot open replaces a problem screen on top instead of piling up on the stack", .offThePool)
    func problemsReplaceEachOther() {
        var router = Router(table: RouterTests.table)
        _ = router.open("auth://select", signedIn: false)
        for url in ["nowhere://a", "characters://nope", "nowhere://b"] { _ = router.open(url, signedIn: false) }
        #expect(router.stack.count == 2)
        #expect(router.top?.url == "nowhere://b")
        let wentBack = router.back()
        #expect(wentBack)
        #expect(router.top?.url == "auth://select")
    }
}
