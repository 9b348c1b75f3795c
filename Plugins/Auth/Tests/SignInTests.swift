import Auth
import MicroappSDK
import MicroappTesting
import Testing

@MainActor
@Suite("Signing in")
struct SignInTests {
    @Test(
        "an email without the shape name@domain.tld gets a message under the email field",
        arguments: ["", "rick", "rick@", "@example.com", "rick@example", "rick@example.", "rick @example.com"])
    func malformedEmail(email: String) throws {
        let auth = try AuthFixture(open: "auth://sign-in", signIn: .unexpected("sign-in"))
        try auth.submit(["email": email, "password": "portal-gun"])
        #expect(auth.harness.field("email")?.error == "Enter an email like name@example.com")
        #expect(auth.harness.field("password")?.error == nil)
        #expect(auth.harness.screen.state == .view)
    }

    @Test("an empty password asks for the password; the sign-up rule 'Use at least 8 characters' is not shown")
    func emptyPassword() throws {
        let auth = try AuthFixture(open: "auth://sign-in", signIn: .unexpected("sign-in"))
        try auth.submit(["email": "rick@example.com", "password": ""])
        #expect(auth.harness.field("password")?.error == "Enter your password")
        #expect(auth.harness.field("email")?.error == nil)
        #expect(auth.harness.screen.state == .view)
    }

    @Test("a short password is sent to the service, which decides: sign-in does not apply the sign-up length rule")
    func shortPasswordIsChecked() throws {
        let auth = try AuthFixture(open: "auth://sign-in")
        try auth.submit(["email": "rick@example.com", "password": "portal"])
        #expect(auth.harness.field("password")?.error == nil)
        #expect(auth.harness.screen.state != .view, "the form was submitted")
    }

    @Test("editing a field clears its message")
    func editingClearsTheMessage() throws {
        let auth = try AuthFixture(open: "auth://sign-in")
        try auth.submit(["email": "rick", "password": "portal-gun"])
        try auth.harness.type("rick@example.com", into: "email")
        #expect(auth.harness.field("email")?.error == nil)
        #expect(auth.harness.field("email")?.text == "rick@example.com")
    }

    @Test("the password field is secure")
    func passwordIsSecure() throws {
        let auth = try AuthFixture(open: "auth://sign-in")
        #expect(auth.harness.field("password")?.isSecure == true)
        #expect(auth.harness.field("email")?.isSecure == false)
    }

    @Test("valid credentials show progress, then write the session without navigating")
    func successWritesTheSession() async throws {
        let auth = try AuthFixture(open: "auth://sign-in")
        try auth.submit(["email": "rick@example.com", "password": "portal-gun"])
        #expect(auth.harness.screen.state == .loading("Signing in…"))
        _ = try await auth.harness.next { $0.state == .view }
        #expect(auth.session.value == MockAccount.rick.session)
        #expect(auth.harness.backStack.map(\.url) == ["auth://sign-in"])
        #expect(auth.harness.openedElsewhere.isEmpty)
    }

    @Test("a wrong password shows an alert that OK dismisses, signed out")
    func wrongPasswordAlerts() async throws {
        let auth = try AuthFixture(open: "auth://sign-in")
        try auth.submit(["email": "rick@example.com", "password": "wrong-password"])
        let screen = try await auth.harness.next { $0.state != .loading("Signing in…") }
        #expect(
            screen.state
                == .alert(
                    Alert(
                        title: "Could not sign in", message: "Wrong email or password",
                        actions: [Button(id: "dismiss", title: "OK")])))
        try auth.harness.tap("dismiss")
        #expect(auth.harness.screen.state == .view)
        #expect(auth.harness.field("email")?.text == "rick@example.com")
        #expect(auth.session.value == nil)
    }

    @Test("an unavailable service shows an error state whose Retry signs in")
    func unavailableThenRetry() async throws {
        let auth = try AuthFixture(
            open: "auth://sign-in", signIn: .failing(first: 1, with: .unavailable, then: .mock))
        try auth.submit(["email": "rick@example.com", "password": "portal-gun"])
        let failed = try await auth.harness.next { $0.state != .loading("Signing in…") }
        guard case .error(let panel) = failed.state else {
            Issue.record("expected the error state, got \(failed.state)")
            return
        }
        #expect(panel.message == "The accounts service is unavailable")
        #expect(panel.actions == [Button(id: "retry", title: "Retry")])
        #expect(auth.session.value == nil)

        try auth.harness.tap("retry")
        _ = try await auth.harness.next { $0.state == .view }
        #expect(auth.session.value == MockAccount.rick.session)
    }

    @Test("signing in empties the form, and so does signing out: the next visit finds no email or password filled in")
    func sessionChangesEmptyTheForm() async throws {
        let auth = try AuthFixture(open: "auth://sign-in")
        try auth.submit(["email": "rick@example.com", "password": "portal-gun"])
        _ = try await auth.harness.next { $0.state == .view }
        #expect(auth.session.value == MockAccount.rick.session)
        #expect(auth.harness.field("email")?.text == "" && auth.harness.field("password")?.text == "")

        try auth.harness.type("morty@example.com", into: "email")
        try auth.harness.type("oh-geez", into: "password")
        auth.session.value = nil
        #expect(auth.harness.field("email")?.text == "", "signed out, the form forgets what was typed")
        #expect(auth.harness.field("password")?.text == "")
    }
}
