import MicroappCore
import MicroappSDK
import Testing

@testable import MicroappTerminal

@Suite struct PlainTextRendererTests {
    @Test func rendersASignInScreen() {
        let expected = """
            Microapps · Auth                                                 signed out   v1
            ────────────────────────────────────────────────────────────────────────────────
            Sign in

            Use the account you created on the web.

            Email: rick@example.com (email)
            Password: ••••• (password)
              ! Too short

            [ Sign in ] (sign-in)   [ Cancel ] (cancel)
            ────────────────────────────────────────────────────────────────────────────────
            auth://sign-in
            """
        #expect(PlainTextRenderer.render(Fixtures.signIn()) == expected)
    }

    @Test func rendersAListWithAlignedColumnsAndTheAccount() {
        let expected = """
            Microapps · Characters                                     rick@example.com   v3
            ────────────────────────────────────────────────────────────────────────────────
            Characters

            (characters)
            > 0  Rick Sanchez  Alive  Human
              1  Morty Smith   Alive  Human
              2  Birdperson    Dead   Bird-Person
              page 1 of 5

            [ Next page ] (next)
            ────────────────────────────────────────────────────────────────────────────────
            characters://list
            """
        #expect(PlainTextRenderer.render(Fixtures.characters) == expected)
    }

    @Test func loadingReplacesTheContentAndSoloModeShowsInTheHeader() {
        let expected = """
            Microapps · Auth                                               solo · mocks   v1
            ────────────────────────────────────────────────────────────────────────────────
            Sign in

            … Signing in…
            ────────────────────────────────────────────────────────────────────────────────
            auth://sign-in
            """
        let frame = Fixtures.signIn(state: .loading("Signing in…"), mode: .solo)
        #expect(PlainTextRenderer.render(frame) == expected)
    }

    @Test func anAlertIsBoxedUnderTheContentWithItsActions() {
        let alert = Alert(
            title: "Sign-in failed", message: "The password is wrong. Try again or reset it.",
            actions: [Button(id: "retry", title: "Try again"), Button(id: "ok", title: "OK")])
        let expected = """
            Microapps · Auth                             signed out   v1
            ────────────────────────────────────────────────────────────
            Sign in

            Use the account you created on the web.

            Email: rick@example.com (email)
            Password: ••••• (password)
              ! Too short

            [ Sign in ] (sign-in)   [ Cancel ] (cancel)

            ┌───────────────────────────────────────────────┐
            │ Sign-in failed                                │
            │ The password is wrong. Try again or reset it. │
            │                                               │
            │ [ Try again ] (retry)   [ OK ] (ok)           │
            └───────────────────────────────────────────────┘
            ────────────────────────────────────────────────────────────
            auth://sign-in
            """
        #expect(PlainTextRenderer.render(Fixtures.signIn(state: .alert(alert)), width: 60) == expected)
    }

    @Test func anErrorStateSaysWhatFailedAndOffersItsActionsThenTheNotices() {
        let panel = ErrorPanel(
            title: "Could not reach the server", message: "The network is down.",
            actions: [Button(id: "retry", title: "Retry")])
        let notices = [
            Notice(level: .info, code: "redirect", message: "Sign in first"),
            Notice(level: .error, code: "unknown-route", message: "No feature opens x://y", fix: "check the URL"),
        ]
        let expected = """
            Microapps · Auth                           solo · mocks · morty@example.com   v1
            ────────────────────────────────────────────────────────────────────────────────
            Sign in

            ✗ Could not reach the server
            The network is down.

            [ Retry ] (retry)
            ────────────────────────────────────────────────────────────────────────────────
            auth://sign-in
            · Sign in first
            ! No feature opens x://y (check the URL)
            """
        let frame = Fixtures.signIn(state: .error(panel), account: "morty@example.com", mode: .solo)
        #expect(PlainTextRenderer.render(frame, notices: notices) == expected)
    }

    @Test func secureTextIsNeverShown() {
        let output = PlainTextRenderer.render(Fixtures.signIn())
        #expect(!output.contains("wubba"))
        #expect(output.contains("Password: ••••• (password)"))
    }

    @Test func emptyFieldsShowThePlaceholderAndDisabledButtonsSaySo() {
        let frame = Frame(
            feature: "auth", featureName: "Auth", version: 1, route: "auth://sign-in",
            screen: Screen(
                title: "Sign in",
                content: [
                    .field(TextField(id: "email", label: "Email", placeholder: "you@example.com")),
                    .field(TextField(id: "code", label: "Code")),
                    .button(Button(id: "go", title: "Go", isEnabled: false)),
                ]))
        let output = PlainTextRenderer.render(frame)
        #expect(output.contains("Email: ‹you@example.com› (email)\nCode: (code)\n\n[ Go ] (go, disabled)"))
    }

    @Test func controlCharactersFromFeaturesAreRemoved() {
        var frame = Fixtures.characters
        frame.screen.title = "Evil\u{1B}[2JTitle\tTab"
        let output = PlainTextRenderer.render(frame)
        #expect(!output.contains("\u{1B}"))
        #expect(output.contains("Evil[2JTitle Tab"))
    }

    @Test("a frame with tabs lists them under the header with the ids to tap, the selected one in brackets")
    func tabsAreListed() {
        let lines = PlainTextRenderer.render(Fixtures.tabbed).split(separator: "\n").map(String.init)
        #expect(lines[1] == "Tabs: [Characters] (tab.characters) · Search (tab.search)")
        #expect(lines[2] == "· Settings (tab.settings)", "tabs flow onto the next line, after the separator")
        #expect(lines[3].hasPrefix("────"))
        let wide = PlainTextRenderer.render(Fixtures.tabbed, width: 100).split(separator: "\n").map(String.init)
        #expect(wide[1] == "Tabs: [Characters] (tab.characters) · Search (tab.search) · Settings (tab.settings)")
        #expect(!PlainTextRenderer.render(Fixtures.characters).contains("Tabs:"))
    }

    @Test func noticesAsLogLines() {
        #expect(
            PlainTextRenderer.render(Notice(level: .info, code: "swap", message: "Swapped v2 → v3"))
                == "· Swapped v2 → v3")
        #expect(
            PlainTextRenderer.render(Notice(level: .error, code: "x", message: "Broken", fix: "Fix it"))
                == "! Broken (Fix it)")
        #expect(PlainTextRenderer.render(Notice(level: .error, code: "x", message: "Broken")) == "! Broken")
    }

    @Test func longTextWrapsAtTheWidth() {
        let frame = Frame(
            feature: "f", featureName: "F", version: 1, route: "f://a",
            screen: Screen(title: "T", content: [.text(Text("one two three four five six seven eight nine ten"))]))
        let lines = PlainTextRenderer.render(frame, width: 20).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.allSatisfy { $0.count <= 20 })
        #expect(lines.contains("one two three four"))
        #expect(lines.contains("five six seven eight"))
    }

    @Test("the header says the app's own name, and an app without accounts shows no account words")
    func appNameWithoutAccounts() {
        var frame = Fixtures.signIn()
        frame.app = "Hello App"
        #expect(PlainTextRenderer.render(frame, width: 40).hasPrefix("Hello App · Auth         signed out   v1\n"))
        frame.hasAccounts = false
        let header = PlainTextRenderer.render(frame, width: 40).split(separator: "\n")[0]
        #expect(header == "Hello App · Auth                      v1")
        #expect(!PlainTextRenderer.render(frame).contains("signed out"))
        frame.mode = .solo
        #expect(PlainTextRenderer.render(frame, width: 40).hasPrefix("Hello App · Auth       solo · mocks   v1"))
    }
}
