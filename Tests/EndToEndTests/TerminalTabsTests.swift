import Foundation
import TestScratch
import Testing

extension TmuxPane {
    /// From the welcome screen: opens sign-in and types Rick's email and password, leaving the password focused.
    func typeRicksCredentials() async throws {
        try send("Enter")
        try await waitFor("Password", "auth://sign-in")
        try send("rick@example.com", literal: true)
        try send("Tab")
        try send("portal-gun", literal: true)
    }
}

/// Each test runs the app in its own data folder, removed after the test.
@Suite("End to end: tabs and the address bar in the terminal UI (tmux)", .serialized, .promptResumes)
final class TerminalTabsTests {
    private let data = AppProcess.freshDataDirectory()

    deinit { try? FileManager.default.removeItem(atPath: data) }

    /// The app in a pane, signed in as Rick with the keyboard (enter in the password field submits).
    private func signedInPane() async throws -> TmuxPane {
        let pane = try TmuxPane("\(AppProcess.executable) --no-build --data \(data)", environment: ["NO_COLOR": "1"])
        try await pane.waitFor("Create account", "auth://select")
        try await pane.typeRicksCredentials()
        try pane.send("Enter")
        try await pane.waitFor("Rick Sanchez", "characters://list", "[1 Characters]", "1-3 tabs")
        return pane
    }

    @Test(
        "a person signs in, switches to Settings with its tab key and signs out: the sign-in form is empty, and signing in again lands at home"
    )
    func signOutThroughTheSettingsTab() async throws {
        let pane = try await signedInPane()
        try pane.send("3", literal: true)
        let settings = try await pane.waitFor("[3 Settings]", "settings://home", "Sign out")
        #expect(settings.contains(" 1 Characters "))
        try pane.send("Enter")
        let signedOut = try await pane.waitFor("signed out", "auth://select")
        #expect(!signedOut.contains("Settings"), "signed out: no tab bar")
        try pane.send("Enter")
        let form = try await pane.waitFor("Password", "auth://sign-in")
        #expect(!form.contains("rick@example.com"), "the last person's email is gone:\n\(form)")
        #expect(!form.contains("•"), "the last person's password is gone:\n\(form)")
        try pane.send("rick@example.com", literal: true)
        try pane.send("Tab")
        try pane.send("portal-gun", literal: true)
        try pane.send("Enter")
        let home = try await pane.waitFor("Rick Sanchez", "characters://list")
        #expect(!home.contains("settings://home"), "home, not the Settings screen left before")
    }

    @Test("the address bar opens a route typed after ':', and an unknown one shows the host's problem screen")
    func addressBar() async throws {
        let pane = try await signedInPane()
        try pane.send(":", literal: true)
        try await pane.waitFor("open URL: _", "esc cancel")
        try pane.send("characters://detail/5", literal: true)
        try pane.send("Enter")
        try await pane.waitFor("Jerry Smith", "characters://detail/5")
        try pane.send("C-o")
        try pane.send("nowhere://at/all", literal: true)
        try pane.send("Enter")
        try await pane.waitFor("Cannot open nowhere://at/all", "no loaded feature answers 'nowhere://'")
        try pane.send("Escape")
        try await pane.waitFor("Jerry Smith", "characters://detail/5")
    }
}
