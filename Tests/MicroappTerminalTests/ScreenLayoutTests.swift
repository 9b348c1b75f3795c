import MicroappCore
import MicroappSDK
import Testing

@testable import MicroappTerminal

@Suite struct ScreenLayoutTests {
    static let alert = Alert(
        title: "Sign-in failed", message: "The password is wrong. Try again or reset it.",
        actions: [Button(id: "retry", title: "Try again"), Button(id: "ok", title: "OK")])
    static let panel = ErrorPanel(
        title: "Could not load", message: "Offline.", actions: [Button(id: "retry", title: "Retry")])
    static let frames: [Frame] = [
        Fixtures.signIn(), Fixtures.characters, Fixtures.tall, Fixtures.signIn(state: .loading("Signing in…")),
        Fixtures.signIn(state: .alert(alert)), Fixtures.signIn(state: .error(panel)), Fixtures.tabbed,
    ]

    private func layout(
        _ frame: Frame, focus: Focus = Focus(), width: Int = 80, height: Int = 24, color: Bool = false,
        notice: Notice? = nil, offset: Int = 0
    ) -> (lines: [StyledLine], scrollOffset: Int) {
        ScreenLayout(width: width, height: height, color: color, notice: notice)
            .lines(for: frame, focus: focus, scrollOffset: offset)
    }

    @Test(arguments: frames, [(80, 24), (40, 10), (120, 40)])
    func everyLineFitsTheTerminal(frame: Frame, size: (Int, Int)) {
        let lines = layout(frame, width: size.0, height: size.1).lines
        #expect(lines.count == size.1)
        #expect(lines.allSatisfy { $0.displayWidth <= size.0 - 1 })
    }

    @Test func chromeAroundTheContent() {
        let lines = layout(Fixtures.signIn()).lines.map(\.text)
        #expect(lines[0].hasPrefix(" Microapps · Auth "))
        #expect(lines[0].hasSuffix("signed out   v1"))
        #expect(lines[1].hasPrefix(" ───"))
        #expect(lines[2] == "  Sign in")
        #expect(lines[22].hasPrefix(" ───"))
        #expect(lines[23].hasPrefix(" tab/↑↓ move · type to edit · esc back · ctrl-c quit"))
        #expect(lines[23].hasSuffix("auth://sign-in "))
    }

    @Test("tabs stand under the header with their keys, the selected one bracketed, and the footer names the keys")
    func tabBar() {
        let lines = layout(Fixtures.tabbed).lines.map(\.text)
        #expect(lines[1].hasPrefix("  [1 Characters]   2 Search    3 Settings "))
        #expect(lines[1].hasSuffix(": open URL "))
        #expect(lines[2].hasPrefix(" ───"))
        #expect(lines[3] == "  Characters")
        #expect(lines[23].hasPrefix(" ↑↓ move · 1-3 tabs · esc back · ctrl-c quit"), "enter select goes first at 80")
        #expect(lines[23].hasSuffix("characters://list "))
        #expect(!layout(Fixtures.characters).lines.map(\.text).contains { $0.contains("open URL") })
    }

    @Test func focusIsMarkedWithoutColourAndReversedWithColour() {
        let plain = layout(Fixtures.signIn(), focus: Focus(id: "sign-in")).lines.map(\.text)
        #expect(plain.contains("  [>Sign in<]   [ Cancel ]"))
        #expect(plain.contains("  Email:    [rick@example.com                        ]"))
        #expect(plain.contains("  Password: [•••••                                   ]"))
        let coloured = layout(Fixtures.signIn(), focus: Focus(id: "sign-in"), color: true).lines
        let rendered = coloured.map { $0.rendered(color: true) }
        #expect(rendered.contains("  \u{1B}[7m[ Sign in ]\u{1B}[0m   [ Cancel ]"))
        #expect(coloured.map { $0.rendered(color: false) }.allSatisfy { !$0.contains("\u{1B}") })
    }

    @Test func aFocusedListRowIsMarked() {
        var focus = Focus()
        focus.rows["characters"] = 1
        let lines = layout(Fixtures.characters, focus: focus).lines.map(\.text)
        #expect(
            lines[4...6] == [
                "  Rick Sanchez  Alive  Human", "> Morty Smith   Alive  Human", "  Birdperson    Dead   Bird-Person",
            ])
        #expect(lines[7] == "  page 1 of 5")
    }

    @Test func scrollsToKeepTheFocusedElementVisible() {
        let top = layout(Fixtures.tall)
        #expect(top.scrollOffset == 0)
        #expect(top.lines[2].text.hasSuffix("↓more"))
        #expect(top.lines.map(\.text).contains("  [>Top<]"))

        let bottom = layout(Fixtures.tall, focus: Focus(id: "bottom"))
        let texts = bottom.lines.map(\.text)
        #expect(texts.contains("  [>Bottom<]"))
        #expect(!texts.contains("  [ Top ]"))
        #expect(texts[2].hasSuffix("↑more"))
        #expect(bottom.scrollOffset > 0)

        let backUp = layout(Fixtures.tall, focus: Focus(id: "top"), offset: bottom.scrollOffset)
        #expect(backUp.scrollOffset == 0)
    }

    @Test func scrollsALongListToTheFocusedRow() {
        let items = (0..<60).map { ListView.Item("Row \($0)") }
        let frame = Frame(
            feature: "f", featureName: "F", version: 1, route: "f://list",
            screen: Screen(title: "Rows", content: [.list(ListView(id: "rows", items: items))]))
        var focus = Focus()
        focus.rows["rows"] = 45
        let result = layout(frame, focus: focus)
        #expect(result.lines.map(\.text).contains("> Row 45"))
        #expect(result.lines[2].text.hasSuffix("↑↓more"))
    }

    @Test func loadingShowsASpinnerInsteadOfTheContent() {
        let texts = layout(Fixtures.signIn(state: .loading("Signing in…"))).lines.map(\.text)
        #expect(texts[4] == "  ⠋ Signing in…")
        #expect(!texts.contains { $0.contains("Email") })
        var next = ScreenLayout(width: 80, height: 24, color: false)
        next.spinnerFrame = 1
        #expect(
            next.lines(for: Fixtures.signIn(state: .loading("x")), focus: Focus(), scrollOffset: 0).lines[4].text
                == "  ⠙ x")
    }

    @Test func anAlertIsBoxedOverTheContentWithTheFocusOnItsActions() {
        let texts = layout(Fixtures.signIn(state: .alert(Self.alert))).lines.map(\.text)
        #expect(texts.contains { $0.contains("│ [>Try again<]   [ OK ]") })
        #expect(texts.contains { $0.contains("┌──") })
        #expect(texts.contains { $0.contains("│ Sign-in failed") })
    }

    @Test func anErrorStateShowsWhatFailedAndRetry() {
        let texts = layout(Fixtures.signIn(state: .error(Self.panel))).lines.map(\.text)
        #expect(texts[4...7] == ["  ✗ Could not load", "  Offline.", "", "  [>Retry<]"])
    }

    @Test func aNoticeReplacesTheKeyHelp() {
        let notice = Notice(level: .error, code: "build", message: "Build failed", fix: "see the log")
        let footer = layout(Fixtures.characters, notice: notice).lines[23].text
        #expect(footer.hasPrefix(" ! Build failed — see the log"))
        #expect(footer.hasSuffix("characters://list "))
    }

    @Test func wideCharactersCountTwoColumns() {
        var frame = Fixtures.characters
        frame.screen.title = String(repeating: "漢", count: 60)
        let lines = layout(frame).lines
        #expect(lines[2].displayWidth <= 79)
        #expect(lines[2].text.hasSuffix("…"))
    }

    @Test("one tab is '1 tab', not '1 tabs'")
    func oneTabIsSingular() {
        #expect(ScreenLayout.tabbedKeyHelp(tabCount: 1, isField: false).contains(" 1 tab · "))
        #expect(ScreenLayout.tabbedKeyHelp(tabCount: 1, isField: true).contains(" alt+1 tab · "))
        #expect(ScreenLayout.tabbedKeyHelp(tabCount: 3, isField: false).contains(" 1-3 tabs · "))
    }

    @Test(
        "at 80 columns the footer keeps 'esc back · ctrl-c quit' and the route: where it runs and the least needed keys go first"
    )
    func footerFitsEightyColumns() {
        var frame = Fixtures.tabbed
        frame.isolation = .process
        for (log, rollback) in [(false, false), (true, false), (false, true), (true, true)] {
            let footer = ScreenLayout(width: 80, height: 24, color: false, canRollBack: rollback, hasLog: log)
                .lines(for: frame, focus: Focus(), scrollOffset: 0).lines[23].text
            #expect(footer.contains("1-3 tabs · esc back · ctrl-c quit"), "\(footer)")
            #expect(footer.hasSuffix("characters://list "), "\(footer)")
            #expect(!footer.contains("…"), "\(footer)")
            #expect(footer.contains("ctrl-r roll back") == rollback, "\(footer)")
            // The log's key goes last, and only when rolling back needs its room.
            #expect(footer.contains("ctrl-l log") == (log && !rollback), "\(footer)")
        }
        // Where there is room, nothing is dropped.
        let wide = ScreenLayout(width: 120, height: 24, color: false).lines(
            for: frame, focus: Focus(), scrollOffset: 0
        ).lines[23].text
        #expect(wide.contains("↑↓ move · enter select · 1-3 tabs · esc back · ctrl-c quit"))
        #expect(wide.hasSuffix("isolated · characters://list "))
    }

    @Test("the host's own screens have no version and name the app once")
    func hostScreenHeader() {
        var problem = Fixtures.characters
        problem.feature = "microapp"
        problem.featureName = "Microapps"
        problem.version = 0
        let header = layout(problem).lines[0].text
        #expect(header.hasPrefix(" Microapps   "), "\(header)")
        #expect(!header.contains("Microapps · Microapps"))
        #expect(header.hasSuffix("rick@example.com"), "\(header)")
        problem.featureName = "Search (not loaded)"
        let stub = layout(problem).lines[0].text
        #expect(stub.hasPrefix(" Microapps · Search (not loaded) ") && !stub.contains("v0"), "\(stub)")
    }

    @Test("an error panel that says the problem is not repeated by the footer, and a long reason wraps whole")
    func errorPanelIsNotRepeated() {
        let reason = "characters has no route like it (it has characters://list, characters://detail/{id}, and more)"
        let panel = ErrorPanel(title: reason, message: "To fix: run `microapp routes`", actions: [])
        let notice = Notice(level: .error, code: "not-found", message: reason, fix: "run `microapp routes`")
        let lines = layout(Fixtures.signIn(state: .error(panel)), notice: notice).lines.map(\.text)
        #expect(lines.filter { $0.contains("no route like it") }.count == 1, "\(lines)")
        #expect(lines.joined(separator: " ").contains("and more)"), "the reason is not cut")
        #expect(lines[23].contains("esc back"))
        let other = Notice(level: .error, code: "x", message: "Something else failed")
        #expect(layout(Fixtures.signIn(state: .error(panel)), notice: other).lines[23].text.contains("! Something"))
    }

    @Test(
        "a notice too long for the footer at 100 columns is wrapped, the route left out while it shows, never cut; a short one stands beside the route"
    )
    func longNoticeWraps() {
        let swapped = Notice(
            level: .info, code: "swapped", message: "Profile swapped v1 → v2 in 26 ms (keeps no state)",
            fix: "to keep it across swaps, give its Root snapshot() and restore(from:)", state: .keepsNone)
        for (width, height) in [(100, 24), (50, 12)] {
            let lines = layout(Fixtures.characters, width: width, height: height, notice: swapped).lines.map(\.text)
            #expect(lines.count == height)
            let footer = lines.suffix(3).joined(separator: " ").split(separator: " ").joined(separator: " ")
            #expect(!footer.contains("…"), "\(lines)")
            #expect(footer.contains("(keeps no state)") && footer.contains("restore(from:)"), "\(lines)")
            #expect(lines.last(where: { $0.hasPrefix(" ✓ Profile swapped") }) != nil, "\(lines)")
        }
        let short = Notice(level: .info, code: "swapped", message: "Profile swapped v1 → v2 in 26 ms (state kept)")
        let lines = layout(Fixtures.characters, width: 100, notice: short).lines.map(\.text)
        #expect(lines[23].hasPrefix(" ✓ Profile swapped v1 → v2 in 26 ms (state kept)"))
        #expect(lines[23].hasSuffix("characters://list "))
        #expect(lines[22].hasPrefix(" ───"))
    }
}

@Suite struct BuildBoxTests {
    private func boxed(_ failure: Notice) -> [String] {
        var layout = ScreenLayout(width: 80, height: 24, color: false)
        layout.buildFailure = failure
        return layout.lines(for: Fixtures.characters, focus: Focus(), scrollOffset: 0).lines.map(\.text)
    }

    @Test(
        "a failed build's box shows each error with file:line:col and says what runs and what to do, as its notice says"
    )
    func boxSaysWhatRunsAndWhatToDo() {
        let error = "Plugins/Settings/Sources/SettingsViewModel.swift:103:27: error: cannot convert value"
        let atStart = boxed(
            Notice(
                level: .error, code: "build-failed",
                message: "Settings did not build at start (swift build): \(error); the library built before runs",
                fix: "the library built before runs for Settings; fix the errors and start again",
                detail: [error, "103 | private let broken: Int = \"x\""]))
        let text = atStart.joined(separator: "\n")
        #expect(text.contains("✗ Settings did not build at start (swift build)"))
        #expect(text.contains("SettingsViewModel.swift:103:27: error: cannot"))
        #expect(text.contains("the library built before runs for Settings; fix the errors and start"))
        #expect(!text.contains("save to rebuild"), "no save rebuilds without --watch")
        #expect(!text.contains("\u{1B}"))
    }

}
