import Auth
import MicroappSDK
import MicroappTesting
import Testing

@MainActor
@Suite("Creating an account")
struct SignUpTests {
    private let rickAgain: KeyValuePairs<String, String> = [
        "name": "Rick Sanchez", "email": "rick@example.com", "password": "portal-gun", "confirm": "portal-gun",
    ]

    @Test("an empty form gets a message under name, email and password")
    func emptyFormMessages() throws {
        let auth = try AuthFixture(open: "auth://sign-up", signUp: .unexpected("sign-up"))
        try auth.harness.tap("submit")
        #expect(auth.harness.field("name")?.error == "Enter your name")
        #expect(auth.harness.field("email")?.error == "Enter an email like name@example.com")
        #expect(auth.harness.field("password")?.error == "Use at least 8 characters")
        #expect(auth.harness.field("confirm")?.error == nil)
        #expect(auth.harness.screen.state == .view)
    }

    @Test("a name of only spaces is empty")
    func blankName() throws {
        let auth = try AuthFixture(open: "auth://sign-up", signUp: .unexpected("sign-up"))
        try auth.submit(["name": "   ", "email": "sq@example.com", "password": "squanch-y", "confirm": "squanch-y"])
        #expect(auth.harness.field("name")?.error == "Enter your name")
        #expect(auth.harness.screen.state == .view)
    }

    @Test("passwords that differ get a message under the confirmation only")
    func mismatchedPasswords() throws {
        let auth = try AuthFixture(open: "auth://sign-up", signUp: .unexpected("sign-up"))
        try auth.submit([
            "name": "Squanchy", "email": "sq@example.com", "password": "squanch-y", "confirm": "squanch-x",
        ])
        #expect(auth.harness.field("confirm")?.error == "Passwords do not match")
        #expect(auth.harness.field("confirm")?.label == "Confirm password")
        #expect(auth.harness.field("password")?.error == nil)
        #expect(auth.harness.screen.state == .view)
    }

    @Test("a new account shows progress, then writes its session")
    func successWritesTheSession() async throws {
        let auth = try AuthFixture(open: "auth://sign-up")
        try auth.submit([
            "name": "Squanchy", "email": "sq@example.com", "password": "squanch-y", "confirm": "squanch-y",
        ])
        #expect(auth.harness.screen.state == .loading("Creating account…"))
        _ = try await auth.harness.next { $0.state == .view }
        #expect(auth.session.value?.name == "Squanchy")
        #expect(auth.session.value?.email == "sq@example.com")
        #expect(auth.harness.backStack.map(\.url) == ["auth://sign-up"])
    }

    @Test("an email that has an account shows an alert that OK dismisses")
    func existingAccountAlerts() async throws {
        let auth = try AuthFixture(open: "auth://sign-up")
        try auth.submit(rickAgain)
        let screen = try await auth.harness.next { $0.state != .loading("Creating account…") }
        guard case .alert(let alert) = screen.state else {
            Issue.record("expected an alert, got \(screen.state)")
            return
        }
        #expect(alert.message == "An account with this email already exists")
        try auth.harness.tap("dismiss")
        #expect(auth.harness.screen.state == .view)
        #expect(auth.session.value == nil)
    }

    @Test("an unavailable service shows an error state whose Retry creates the account")
    func unavailableThenRetry() async throws {
        let auth = try AuthFixture(open: "auth://sign-up", signUp: .failing(first: 1, with: .unavailable, then: .mock))
        try auth.submit([
            "name": "Squanchy", "email": "sq@example.com", "password": "squanch-y", "confirm": "squanch-y",
        ])
        let failed = try await auth.harness.next { $0.state != .loading("Creating account…") }
        #expect(failed.element(id: "retry") != nil)
        try auth.harness.tap("retry")
        _ = try await auth.harness.next { $0.state == .view }
        #expect(auth.session.value?.email == "sq@example.com")
    }
}
