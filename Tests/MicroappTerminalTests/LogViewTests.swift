import MicroappCore
import MicroappSDK
import Testing

@testable import MicroappTerminal

/// The log view: what isolated features printed, opened and closed with ctrl-l, in place of the screen.
@MainActor
@Suite struct LogViewTests {
    private static func printed(_ line: String, by feature: String) -> Notice {
        Notice(level: .info, code: Notice.logCode, message: line, feature: feature)
    }

    @Test("it keeps the last lines of each feature, in the order they came, however much another one prints")
    func keepsTheLastLinesPerFeature() {
        var log = FeatureLog(limit: 3)
        let others = log.take(
            [Self.printed("quiet 1", by: "auth")] + (1...5).map { Self.printed("loud \($0)", by: "printer") }
                + [Notice(level: .info, code: "swapped", message: "Printer swapped v1 → v2")])
        #expect(others.map(\.code) == ["swapped"], "only printed lines go to the log")
        #expect(log.entries.map(\.line) == ["quiet 1", "loud 3", "loud 4", "loud 5"])
        #expect(log.entries.first?.feature == "auth")
    }

    @Test("open, it takes the screen's place with each line after its feature's name, and every line fits")
    func layoutInPlaceOfTheScreen() {
        var log = FeatureLog()
        _ = log.take((1...30).map { Self.printed("line \($0) \u{7}bell", by: $0 % 2 == 0 ? "printer" : "auth") })
        let lines = ScreenLayout(width: 80, height: 24, color: false, log: log, hasLog: true)
            .lines(for: Fixtures.characters, focus: Focus(), scrollOffset: 0).lines
        let text = lines.map(\.text)
        #expect(lines.count == 24 && lines.allSatisfy { $0.displayWidth <= 79 })
        #expect(text[2].hasPrefix("  Log · what isolated features printed"))
        #expect(!text.contains { $0.contains("Rick Sanchez") }, "the app's screen shows through the log")
        #expect(text[21] == "  printer │ line 30 bell", "the newest line is last, its control characters removed")
        #expect(text[20] == "  auth    │ line 29 bell")
        #expect(text[23].hasPrefix(" ctrl-l/esc close log · 30 line(s) of 2 feature(s)"))
    }

    @Test("a printed line is not flashed in the footer; ctrl-l shows the log and closes it, esc closes it too")
    func ctrlLOpensAndCloses() {
        let driver = FakeDriver(frame: Fixtures.characters)
        var drawn = ""
        let ui = TerminalUI(driver: driver, color: false, noticeDuration: .seconds(60), output: { drawn += $0 })
        ui.draw()
        #expect(!drawn.contains("ctrl-l log"), "nothing printed yet: no log to offer")
        drawn = ""
        ui.show([Self.printed("hello from the plugin", by: "printer")])
        #expect(!drawn.contains("hello from the plugin"))
        #expect(drawn.contains(" ctrl-l log · tab/↑↓ move"))
        drawn = ""
        #expect(ui.press(.controlL))
        #expect(drawn.contains("printer │ hello from the plugin"))
        drawn = ""
        #expect(ui.press(.character("q")), "keys other than ctrl-l, esc and ctrl-c do nothing while it is open")
        #expect(ui.press(.escape))
        #expect(drawn.contains("Rick Sanchez"))
        #expect(ui.press(.controlL))
        #expect(ui.press(.controlL))
        #expect(driver.sent.isEmpty, "no key reached the app")
    }
}
