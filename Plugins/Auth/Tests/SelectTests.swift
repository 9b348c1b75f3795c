import Auth
import MicroappSDK
import MicroappTesting
import Testing

@MainActor
@Suite("The welcome screen")
struct SelectTests {
    @Test("offers signing in and creating an account")
    func offersBothWaysIn() throws {
        let auth = try AuthFixture(open: "auth://select")
        #expect(auth.harness.screen.title == "Welcome")
        #expect(auth.harness.screen.texts == ["Sign in or create an account to browse characters."])
        #expect(auth.harness.button("sign-in")?.title == "Sign in")
        #expect(auth.harness.button("sign-up")?.title == "Create account")
    }

    @Test("Sign in pushes the sign-in route")
    func signInPushesItsRoute() throws {
        let auth = try AuthFixture(open: "auth://select")
        try auth.harness.tap("sign-in")
        #expect(auth.harness.backStack.map(\.url) == ["auth://select", "auth://sign-in"])
        #expect(auth.harness.screen.title == "Sign in")
    }

    @Test("Create account pushes the sign-up route, and back returns to the welcome screen")
    func createAccountPushesItsRoute() throws {
        let auth = try AuthFixture(open: "auth://select")
        try auth.harness.tap("sign-up")
        #expect(auth.harness.backStack.map(\.url) == ["auth://select", "auth://sign-up"])
        #expect(auth.harness.screen.title == "Create account")
        auth.harness.back()
        #expect(auth.harness.location.url == "auth://select")
    }

    @Test("a button the screen does not offer cannot be tapped")
    func missingButtonsThrow() throws {
        let auth = try AuthFixture(open: "auth://select")
        #expect(throws: RootDriver.Failure.self) { try auth.harness.tap("submit") }
    }

    @Test("the manifest declares three routes, sign-in first, and owns the session")
    func manifestDeclaresRoutesAndNeeds() throws {
        let manifest = try ManifestCoding.decode(try ManifestCoding.encode(AuthFeature.manifest))
        #expect(manifest.routes.map(\.pattern) == ["auth://select", "auth://sign-in", "auth://sign-up"])
        #expect(manifest.routes.map(\.isSignIn) == [true, false, false])
        #expect(manifest.requirements.map(\.key) == ["auth.sign-in", "auth.sign-up", "session"])
        #expect(
            manifest.requirements.map(\.type) == [
                "Service<Credentials, Session>", "Service<NewAccount, Session>", "Optional<Session>",
            ])
        #expect(manifest.requirements.last?.access == .readWrite)
        #expect(manifest.hasMocks)
    }
}
