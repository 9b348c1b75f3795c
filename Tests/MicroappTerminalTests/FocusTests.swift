import MicroappCore
import MicroappSDK
import Testing

@testable import MicroappTerminal

@Suite struct FocusTests {
    let screen = Fixtures.signIn().screen

    @Test func tabMovesInDocumentOrderAndWraps() {
        var focus = Focus()
        #expect(focus.focusedID(in: screen) == "email")
        var order: [String?] = []
        for _ in 0..<4 {
            #expect(focus.handle(.tab, on: screen) == .moved)
            order.append(focus.focusedID(in: screen))
        }
        #expect(order == ["password", "sign-in", "cancel", "email"])
        #expect(focus.handle(.shiftTab, on: screen) == .moved)
        #expect(focus.focusedID(in: screen) == "cancel")
    }

    @Test func arrowsMoveWithoutWrapping() {
        var focus = Focus()
        #expect(focus.handle(.up, on: screen) == .ignored)
        #expect(focus.handle(.down, on: screen) == .moved)
        #expect(focus.focusedID(in: screen) == "password")
    }

    @Test func enterOnAButtonTapsIt() {
        var focus = Focus(id: "sign-in")
        #expect(focus.handle(.enter, on: screen) == .send(.action(.tap(id: "sign-in"))))
    }

    @Test func typingEditsTheFocusedFieldWithTheWholeText() {
        var focus = Focus(id: "email")
        #expect(
            focus.handle(.character("x"), on: screen) == .send(.action(.input(id: "email", text: "rick@example.comx"))))
        #expect(focus.handle(.backspace, on: screen) == .send(.action(.input(id: "email", text: "rick@example.co"))))
        #expect(
            focus.handle(.character("q"), on: screen) == .send(.action(.input(id: "email", text: "rick@example.comq"))))
    }

    @Test func qQuitsOnlyWhenNoFieldIsFocused() {
        var focus = Focus(id: "cancel")
        #expect(focus.handle(.character("q"), on: screen) == .quit)
        var inField = Focus(id: "password")
        #expect(inField.handle(.interrupt, on: screen) == .quit)
    }

    @Test func escapeGoesBack() {
        var focus = Focus()
        #expect(focus.handle(.escape, on: screen) == .send(.back))
    }

    @Test func arrowsMoveTheRowInAListAndTabLeavesIt() {
        let screen = Fixtures.characters.screen
        var focus = Focus()
        #expect(focus.focusedID(in: screen) == "characters")
        #expect(focus.handle(.down, on: screen) == .moved)
        #expect(focus.handle(.down, on: screen) == .moved)
        #expect(focus.handle(.enter, on: screen) == .send(.action(.select(id: "characters", index: 2))))
        #expect(focus.handle(.down, on: screen) == .moved)
        #expect(focus.focusedID(in: screen) == "next")
        #expect(focus.handle(.up, on: screen) == .moved)
        #expect(focus.handle(.up, on: screen) == .moved)
        #expect(focus.handle(.enter, on: screen) == .send(.action(.select(id: "characters", index: 1))))
        #expect(focus.handle(.tab, on: screen) == .moved)
        #expect(focus.focusedID(in: screen) == "next")
    }

    @Test func inAnAlertOnlyItsActionsTakeFocusAndTheContentFocusComesBack() {
        let alert = Alert(
            title: "Oops", message: "No", actions: [Button(id: "ok", title: "OK"), Button(id: "more", title: "More")])
        let alerted = Fixtures.signIn(state: .alert(alert)).screen
        var focus = Focus()
        #expect(focus.handle(.tab, on: screen) == .moved)
        #expect(focus.focusedID(in: alerted) == "ok")
        #expect(focus.handle(.tab, on: alerted) == .moved)
        #expect(focus.handle(.tab, on: alerted) == .moved)
        #expect(focus.focusedID(in: alerted) == "ok")
        #expect(focus.handle(.character("x"), on: alerted) == .ignored)
        #expect(focus.handle(.enter, on: alerted) == .send(.action(.tap(id: "ok"))))
        #expect(focus.focusedID(in: screen) == "password")
    }

    @Test func focusStaysOnTheSameIdWhenElementsChange() {
        var focus = Focus()
        _ = focus.handle(.tab, on: screen)
        var changed = screen
        changed.content.insert(.button(Button(id: "help", title: "Help")), at: 0)
        #expect(focus.focusedID(in: changed) == "password")
        changed.content.remove(at: 2)
        changed.content.remove(at: 2)
        #expect(focus.focusedID(in: changed) == "help")
    }

    @Test("enter in the last field of a form taps the button right after it; in an earlier field it moves on")
    func enterInTheLastFieldSubmits() {
        var focus = Focus(id: "email")
        #expect(focus.handle(.enter, on: screen) == .moved)
        #expect(focus.focusedID(in: screen) == "password")
        #expect(focus.handle(.enter, on: screen) == .send(.action(.tap(id: "sign-in"))))
    }

    @Test("enter in a field followed by a list moves to the list, never to a button further down")
    func enterBeforeAListMoves() {
        let search = Screen(
            title: "Search",
            content: [
                .field(TextField(id: "query", label: "Search", text: "")),
                .list(ListView(id: "recent", items: [ListView.Item("Rick")])),
                .button(Button(id: "clear", title: "Clear")),
            ])
        var focus = Focus(id: "query")
        #expect(focus.handle(.enter, on: search) == .moved)
        #expect(focus.focusedID(in: search) == "recent")
    }

    @Test func disabledButtonsAreSkippedAndLoadingHasNothingToFocus() {
        let screen = Screen(
            title: "T",
            content: [.button(Button(id: "a", title: "A", isEnabled: false)), .button(Button(id: "b", title: "B"))])
        var focus = Focus()
        #expect(focus.focusedID(in: screen) == "b")
        #expect(focus.handle(.enter, on: screen) == .send(.action(.tap(id: "b"))))
        var loading = screen
        loading.state = .loading("Wait")
        #expect(focus.focusedID(in: loading) == nil)
        #expect(focus.handle(.enter, on: loading) == .ignored)
    }
}

/// The terminal UI's key handling against a fake driver, drawing into a string instead of the terminal.
@MainActor
@Suite struct TerminalUIKeyTests {
    @Test func enterOnAFocusedButtonSendsTheTap() {
        let driver = FakeDriver(frame: Fixtures.signIn())
        var drawn = ""
        let ui = TerminalUI(driver: driver, color: false, noticeDuration: .seconds(1), output: { drawn += $0 })
        ui.draw()
        #expect(drawn.contains("> Email:"))
        #expect(ui.press(.tab))
        #expect(ui.press(.tab))
        #expect(drawn.contains("[>Sign in<]"))
        #expect(ui.press(.enter))
        #expect(driver.sent == [.action(.tap(id: "sign-in"))])
    }

    @Test("a notice belongs to the screen it came with: on another screen the footer shows the keys again")
    func staleErrorLeavesWithItsScreen() {
        var problem = Fixtures.characters
        problem.route = "characters://nope"
        let driver = FakeDriver(frame: problem)
        var drawn = ""
        let ui = TerminalUI(driver: driver, color: false, noticeDuration: .seconds(3600), output: { drawn += $0 })
        ui.show([Notice(level: .error, code: "not-found", message: "characters has no route like it")])
        #expect(drawn.contains("! characters has no route like it"))
        drawn = ""
        driver.frame = Fixtures.characters
        ui.draw()
        #expect(!drawn.contains("no route like it"))
        #expect(drawn.contains("esc back · ctrl-c quit"))
        // A redirect's notice stays on the screen it led to, and goes with it.
        driver.frame = problem
        ui.show([Notice(level: .info, code: "redirect", message: "Sign in to continue to characters://list")])
        // Information that is not a success has no tick.
        #expect(drawn.contains("· Sign in to continue") && !drawn.contains("✓ Sign in"))
        drawn = ""
        driver.frame = Fixtures.characters
        ui.draw()
        #expect(!drawn.contains("Sign in to continue") && drawn.contains("ctrl-c quit"))
    }

    @Test("`ready` (for scripts) leaves the footer to the redirect's reason, alone or after it")
    func readyLeavesTheFooterAlone() {
        let driver = FakeDriver(frame: Fixtures.signIn())
        var drawn = ""
        let ui = TerminalUI(driver: driver, color: false, noticeDuration: .seconds(3600), output: { drawn += $0 })
        let ready = Notice(level: .info, code: "ready", message: "every feature is ready (4 running)")
        ui.show([Notice(level: .info, code: "redirect", message: "Sign in to continue to characters://list"), ready])
        #expect(drawn.contains("· Sign in to continue") && !drawn.contains("every feature is ready"))
        // Alone, it changes nothing on screen (only what changed is drawn again).
        drawn = ""
        ui.show([ready])
        #expect(!drawn.contains("every feature is ready") && !drawn.contains("Sign in to continue"))
    }

    @Test func typingSendsTheWholeTextEachTime() {
        let driver = FakeDriver(frame: Fixtures.signIn())
        driver.reaction = { driver, event in
            guard case .action(.input(let id, let text)) = event, id == "email" else { return }
            var frame = driver.frame
            frame.screen.content[1] = .field(TextField(id: "email", label: "Email", text: text))
            driver.update(frame)
        }
        let ui = TerminalUI(driver: driver, color: false, noticeDuration: .seconds(1), output: { _ in })
        for _ in 0..<16 { _ = ui.press(.backspace) }
        _ = ui.press(.character("a"))
        _ = ui.press(.character("q"))
        #expect(driver.sent.last == .action(.input(id: "email", text: "aq")))
        #expect(!driver.hasQuit)
    }

    @Test("digits pick tabs when no field is focused; in a field they are text, and alt+digit picks the tab")
    func digitsPickTabs() {
        let driver = FakeDriver(frame: Fixtures.tabbed)
        let ui = TerminalUI(driver: driver, color: false, noticeDuration: .seconds(1), output: { _ in })
        #expect(ui.press(.character("3")))
        #expect(ui.press(.character("4")), "there is no fourth tab: nothing is sent")
        #expect(driver.sent == [.action(.tap(id: "tab.settings"))])
        var search = Fixtures.tabbed
        search.screen = Fixtures.signIn().screen
        driver.update(search)
        driver.sent = []
        #expect(ui.press(.character("2")))
        #expect(ui.press(.alt("2")))
        #expect(
            driver.sent == [.action(.input(id: "email", text: "rick@example.com2")), .action(.tap(id: "tab.search"))])
    }

    @Test("the address bar opens with ':' or ctrl-o, takes the keys, opens the URL on enter and closes on esc")
    func addressBar() {
        let driver = FakeDriver(frame: Fixtures.tabbed)
        var drawn = ""
        let ui = TerminalUI(driver: driver, color: false, noticeDuration: .seconds(1), output: { drawn += $0 })
        #expect(ui.press(.character(":")))
        for character in "search://homeX" { #expect(ui.press(.character(character))) }
        #expect(ui.press(.backspace))
        #expect(drawn.contains("open URL: search://home_"))
        #expect(driver.sent.isEmpty, "keys typed in the address bar do not reach the screen")
        #expect(ui.press(.enter))
        #expect(driver.sent == [.open(url: "search://home")])
        #expect(ui.press(.controlO))
        #expect(ui.press(.character("q")))
        #expect(ui.press(.escape))
        #expect(driver.sent == [.open(url: "search://home")], "esc cancels: nothing opened, not even back")
        #expect(!driver.hasQuit)
    }

    @Test func quittingSendsQuit() {
        let driver = FakeDriver(frame: Fixtures.characters)
        let ui = TerminalUI(driver: driver, color: false, noticeDuration: .seconds(1), output: { _ in })
        #expect(!ui.press(.character("q")))
        #expect(driver.sent == [.quit])
    }

    @Test func aNoticeReplacesTheKeyHelp() {
        let driver = FakeDriver(frame: Fixtures.characters)
        var drawn = ""
        let ui = TerminalUI(driver: driver, color: false, noticeDuration: .seconds(60), output: { drawn += $0 })
        ui.show([Notice(level: .info, code: "swapped", message: "Characters swapped v2 → v3")])
        #expect(drawn.contains("✓ Characters swapped v2 → v3"))
        #expect(!drawn.contains("ctrl-c quit"))
        #expect(!drawn.contains("\u{1B}[7m"))
    }

    @Test func workStillGoingOnIsNotTickedAsDone() {
        let driver = FakeDriver(frame: Fixtures.characters)
        var drawn = ""
        let ui = TerminalUI(driver: driver, color: false, noticeDuration: .seconds(60), output: { drawn += $0 })
        ui.show([Notice(level: .info, code: "building", message: "Building Characters…")])
        #expect(drawn.contains("~ Building Characters…"))
        #expect(!drawn.contains("✓ Building"))
    }
}
