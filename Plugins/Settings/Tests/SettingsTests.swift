import MicroappSDK
import MicroappTesting
import Settings
import Testing

@MainActor
@Suite("The settings screen")
struct SettingsTests {
    @Test("shows the signed-in name and email, with Sign out and Delete account")
    func showsAccount() throws {
        let settings = try SettingsFixture()
        #expect(settings.harness.screen.title == "Settings")
        #expect(settings.harness.screen.texts == ["Signed in as Rick Sanchez", "rick@example.com"])
        #expect(settings.harness.button("sign-out")?.title == "Sign out")
        #expect(settings.harness.button("delete-account")?.title == "Delete account")
    }

    @Test("Sign out shows progress, calls the service once and leaves navigation to the host")
    func signOutCallsServiceOnce() async throws {
        let settings = try SettingsFixture()
        try settings.harness.tap("sign-out")
        #expect(settings.harness.screen.state == .loading("Signing out…"))
        #expect(settings.harness.button("sign-out") == nil)
        _ = try await settings.harness.eventually { $0.state == .view }
        #expect(await settings.signOuts.value == 1)
        #expect(settings.session.value == nil)
        #expect(settings.harness.backStack.map(\.url) == ["settings://home"])
        #expect(settings.harness.openedElsewhere.isEmpty)
    }

    @Test("Delete account asks for confirmation first, and Cancel deletes nothing")
    func deleteAsksAndCancelDoesNothing() async throws {
        let settings = try SettingsFixture()
        try settings.harness.tap("delete-account")
        #expect(
            settings.harness.screen.state
                == .alert(
                    Alert(
                        title: "Delete your account?",
                        message: "This removes your account and your recent searches. It cannot be undone.",
                        actions: [
                            Button(id: "confirm-delete", title: "Delete"), Button(id: "cancel-delete", title: "Cancel"),
                        ])))
        #expect(settings.harness.button("sign-out") == nil)
        try settings.harness.tap("cancel-delete")
        #expect(settings.harness.screen.state == .view)
        await Task.yield()
        #expect(await settings.deletions.value == 0)
        #expect(settings.session.value == MockSettings.session)
    }

    @Test("confirming Delete shows progress and calls the service once, without navigating")
    func confirmDeletes() async throws {
        let settings = try SettingsFixture()
        try settings.harness.tap("delete-account")
        try settings.harness.tap("confirm-delete")
        #expect(settings.harness.screen.state == .loading("Deleting account…"))
        _ = try await settings.harness.eventually { $0.state == .view }
        #expect(await settings.deletions.value == 1)
        #expect(await settings.signOuts.value == 0)
        #expect(settings.harness.openedElsewhere.isEmpty)
    }

    @Test("a failing sign-out shows an error state whose Retry signs out")
    func failingSignOutRetries() async throws {
        let settings = try SettingsFixture(signOut: .failing(first: 1, with: .unavailable, then: .mockSigningOut(nil)))
        try settings.harness.tap("sign-out")
        let failed = try await settings.harness.eventually { $0.state != .loading("Signing out…") }
        #expect(
            failed.state
                == .error(
                    ErrorPanel(
                        title: "Could not sign out", message: "The accounts service is unavailable",
                        actions: [Button(id: "retry", title: "Retry")])))
        try settings.harness.tap("retry")
        #expect(settings.harness.screen.state == .loading("Signing out…"))
        _ = try await settings.harness.eventually { $0.state == .view }
        #expect(await settings.signOuts.value == 2)
    }

    @Test("a failing delete shows an error state whose Retry deletes without asking again")
    func failingDeleteRetries() async throws {
        let settings = try SettingsFixture(
            deleteAccount: .failing(first: 1, with: .unavailable, then: .mockSigningOut(nil)))
        try settings.harness.tap("delete-account")
        try settings.harness.tap("confirm-delete")
        let failed = try await settings.harness.eventually { $0.state != .loading("Deleting account…") }
        guard case .error(let panel) = failed.state else {
            Issue.record("expected the error state, got \(failed.state)")
            return
        }
        #expect(panel.title == "Could not delete the account")
        try settings.harness.tap("retry")
        #expect(settings.harness.screen.state == .loading("Deleting account…"))
        _ = try await settings.harness.eventually { $0.state == .view }
        #expect(await settings.deletions.value == 2)
    }

    @Test("a change of session redraws the account, and signed out there is nothing to press")
    func followsSession() throws {
        let settings = try SettingsFixture()
        let before = settings.harness.invalidations
        settings.session.value = Session(accountID: "2", email: "morty@example.com", name: "Morty Smith")
        #expect(settings.harness.invalidations == before + 1)
        #expect(settings.harness.screen.texts == ["Signed in as Morty Smith", "morty@example.com"])
        settings.session.value = nil
        #expect(settings.harness.screen.texts == ["Signed out"])
        #expect(settings.harness.button("sign-out") == nil)
        #expect(settings.harness.button("delete-account") == nil)
    }
}
