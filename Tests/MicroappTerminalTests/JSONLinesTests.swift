import Foundation
import MicroappCore
import MicroappSDK
import Testing

@testable import MicroappTerminal

@MainActor
@Suite struct JSONLinesTests {
    private func object(_ line: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func aFrameLineIsTheFrameFlatWithItsTypeFirst() throws {
        let frame = Fixtures.signIn(account: "rick@example.com")
        let line = JSONLinesDriver.frameLine(frame)
        #expect(line.hasPrefix(#"{"type":"frame","account":"rick@example.com","depth":0,"feature":"auth""#))
        #expect(line.contains(#""route":"auth://sign-in""#))
        #expect(!line.contains("\n"))
        #expect(try JSONDecoder().decode(Frame.self, from: Data(line.utf8)) == frame.maskingSecureText)
        #expect(try object(line)["type"] as? String == "frame")
    }

    @Test("a secure field's text leaves as one dot per character, never as typed, even inside a stack")
    func secureFieldsAreMasked() throws {
        var frame = Fixtures.signIn()
        frame.screen.content.append(
            .stack(Stack(.vertical, [.field(TextField(id: "pin", label: "PIN", text: "1234", isSecure: true))])))
        let line = JSONLinesDriver.frameLine(frame)
        #expect(!line.contains("wubba") && !line.contains("1234"))
        let screen = try JSONDecoder().decode(Frame.self, from: Data(line.utf8)).screen
        guard case .field(let password) = screen.content[2], case .stack(let stack) = screen.content[4],
            case .field(let pin) = stack.children[0]
        else { throw AppFrameError() }
        #expect(password.text == "•••••" && pin.text == "••••")
        guard case .field(let email) = screen.content[1] else { throw AppFrameError() }
        #expect(email.text == "rick@example.com")
    }

    @Test("an event waits until the loading screen has finished, then is delivered")
    func eventsWaitForTheAppToSettle() async {
        let driver = FakeDriver(frame: Fixtures.signIn(state: .loading("Signing in…")))
        var statesWhenSent: [Bool] = []
        driver.reaction = { driver, _ in statesWhenSent.append(driver.frame.loadingReason == nil) }
        let (input, continuation) = AsyncStream<String>.makeStream()
        continuation.yield(#"{"type":"back"}"#)
        continuation.yield(#"{"type":"select","id":"characters","index":1}"#)
        continuation.finish()
        // The sign-in finishes only after the events were read.
        Task { @MainActor in
            for _ in 0..<5 { await Task.yield() }
            driver.update(Fixtures.characters)
        }
        let output = LineCollector()
        // A limit no stall of the main actor by other tests reaches (the default 10 s was, once, on CI): the events
        // wait for the update, however late it runs.
        await JSONLinesDriver(
            driver: driver, input: input, output: output.write, settle: .zero, settleTimeout: .seconds(600)
        ).run()
        #expect(driver.sent == [.back, .action(.select(id: "characters", index: 1))])
        #expect(statesWhenSent == [true, true])
    }

    @Test("every kind of event, back and quit included, gets not-settled after the timeout, naming it and the reason")
    func eventsThatWaitTooLongAreAnsweredNotSettled() async throws {
        let driver = FakeDriver(frame: Fixtures.signIn(state: .loading("Signing in…")))
        let (input, continuation) = AsyncStream<String>.makeStream()
        for line in [
            #"{"type":"back"}"#, #"{"type":"input","id":"password","text":"portal-gun"}"#, #"{"type":"quit"}"#,
            #"{"type":"back"}"#,
        ] {
            continuation.yield(line)
        }
        let output = LineCollector()
        await JSONLinesDriver(
            driver: driver, input: input, output: output.write, settle: .zero, settleTimeout: .milliseconds(20)
        ).run()
        #expect(driver.sent.isEmpty)
        let errors = try output.lines.dropFirst().map { try object($0) }
        #expect(errors.map { $0["code"] as? String } == ["not-settled", "not-settled", "not-settled"])
        let messages = errors.compactMap { $0["message"] as? String }
        #expect(messages[0].hasPrefix("back was not delivered"))
        #expect(messages[1].hasPrefix("input of 10 characters into 'password' was not delivered"))
        #expect(messages[2].hasPrefix("quit was not delivered"))
        #expect(messages.allSatisfy { $0.contains("auth://sign-in is loading (“Signing in…”)") })
        #expect((errors[0]["fix"] as? String)?.contains("--settle-timeout") == true)
        #expect(!output.lines.joined().contains("portal-gun"))
    }

    @Test("a frame of the full app says account null, mode run and no mocks, as data")
    func absentAccountIsNullAndModeIsData() throws {
        let line = JSONLinesDriver.frameLine(Fixtures.characters.with(account: nil))
        let json = try object(line)
        #expect(json["account"] is NSNull)
        #expect(json["mode"] as? String == "run")
        #expect(json["mocks"] as? [String] == [])
        #expect(try JSONDecoder().decode(Frame.self, from: Data(line.utf8)) == Fixtures.characters.with(account: nil))
    }

    @Test func noticesAndErrors() {
        #expect(
            JSONLinesDriver.noticeLine(Notice(level: .info, code: "redirect", message: "Sign in first"))
                == #"{"type":"notice","code":"redirect","message":"Sign in first"}"#)
        #expect(
            JSONLinesDriver.noticeLine(
                Notice(level: .error, code: "unknown-route", message: "No route", fix: "Check it"))
                == #"{"type":"error","code":"unknown-route","fix":"Check it","message":"No route"}"#)
        #expect(
            JSONLinesDriver.errorLine(code: "x", message: "m", fix: nil)
                == #"{"type":"error","code":"x","fix":null,"message":"m"}"#)
    }

    @Test("a swap's notice line says what became of the state: kept, reset or none, with the fix for none")
    func swapNoticeCarriesState() {
        let swapped = Notice(
            level: .info, code: "swapped", message: "Profile swapped v1 → v2 in 26 ms (keeps no state)",
            fix: "give its Root snapshot()", feature: "profile", from: 1, to: 2, milliseconds: 26, state: .keepsNone)
        #expect(
            JSONLinesDriver.noticeLine(swapped)
                == #"{"type":"notice","code":"swapped","feature":"profile","fix":"give its Root snapshot()","from":1,"#
                + #""message":"Profile swapped v1 → v2 in 26 ms (keeps no state)","milliseconds":26,"state":"none","to":2}"#
        )
        #expect(PlainTextRenderer.render(swapped).hasSuffix("(keeps no state) (give its Root snapshot())"))
        var kept = swapped
        kept.state = .kept
        kept.fix = nil
        #expect(JSONLinesDriver.noticeLine(kept).contains(#""state":"kept""#))
    }

    @Test func runWritesFramesSendsEventsReportsBadLinesAndEndsAtEOF() async throws {
        let driver = FakeDriver(frame: Fixtures.signIn())
        driver.reaction = { driver, event in
            if event == .action(.tap(id: "sign-in")) {
                driver.update(Fixtures.characters, notices: [Notice(level: .info, code: "signed-in", message: "Hi")])
            }
            if event == .back { driver.update(driver.frame) }
        }
        let (input, continuation) = AsyncStream<String>.makeStream()
        for line in [#"{"type":"back"}"#, "not json", "", #"{"type":"tap","id":"sign-in"}"#] {
            continuation.yield(line)
        }
        continuation.finish()
        let output = LineCollector()
        await JSONLinesDriver(driver: driver, input: input, output: output.write, settle: .zero).run()

        #expect(driver.sent == [.back, .action(.tap(id: "sign-in"))])
        let types = try output.lines.map { try object($0)["type"] as? String }
        #expect(types == ["frame", "error", "notice", "frame"])
        let bad = try object(output.lines[1])
        #expect(bad["code"] as? String == "bad-event")
        #expect((bad["message"] as? String)?.contains("line 2") == true)
        #expect((bad["fix"] as? String)?.contains(#"{"type":"tap","id":"sign-in"}"#) == true)
        #expect(output.lines[3] == JSONLinesDriver.frameLine(Fixtures.characters))
        #expect(driver.onUpdate == nil)
    }

    @Test func quitStopsReadingInput() async {
        let driver = FakeDriver(frame: Fixtures.signIn())
        let (input, continuation) = AsyncStream<String>.makeStream()
        continuation.yield(#"{"type":"quit"}"#)
        continuation.yield(#"{"type":"back"}"#)
        let output = LineCollector()
        await JSONLinesDriver(driver: driver, input: input, output: output.write, settle: .zero).run()
        #expect(driver.sent == [.quit])
        #expect(output.lines.count == 1)
    }

    @Test func updatesAfterEOFAreWaitedForWhileLoading() async {
        let driver = FakeDriver(frame: Fixtures.signIn(state: .loading("Signing in…")))
        Task { @MainActor in
            try? await Task.sleep(for: .milliseconds(50))
            driver.update(Fixtures.characters)
        }
        let (input, continuation) = AsyncStream<String>.makeStream()
        continuation.finish()
        let output = LineCollector()
        await JSONLinesDriver(driver: driver, input: input, output: output.write, settle: .zero).run()
        #expect(
            output.lines
                == [Fixtures.signIn(state: .loading("Signing in…")), Fixtures.characters].map(JSONLinesDriver.frameLine)
        )
    }

    @Test(arguments: [
        ("tap sign-in", Event.action(.tap(id: "sign-in"))),
        ("input email rick sanchez", .action(.input(id: "email", text: "rick sanchez"))),
        ("input email", .action(.input(id: "email", text: ""))),
        ("select characters 2", .action(.select(id: "characters", index: 2))),
        ("  back ", .back), ("open characters://detail/2", .open(url: "characters://detail/2")),
        ("rollback characters", .rollback(feature: "characters")), ("quit", .quit),
        (#"{"type":"select","id":"characters","index":1}"#, .action(.select(id: "characters", index: 1))),
    ])
    func textCommands(line: String, event: Event) {
        #expect(EventLineParser.parseCommand(line) == .success(event))
    }

    @Test func badTextCommandsSayWhy() {
        #expect(
            EventLineParser.parseCommand("select characters two")
                == .failure(.init(reason: "'two' is not a row number")))
        #expect(EventLineParser.parseCommand("dance") == .failure(.init(reason: "'dance' is not a command")))
        #expect(EventLineParser.parseCommand("back now") == .failure(.init(reason: "wrong arguments for 'back'")))
    }

    @Test func theTextUIPrintsEachNewFrameOnceAndNotices() async {
        let driver = FakeDriver(frame: Fixtures.characters)
        driver.reaction = { driver, event in
            driver.update(
                driver.frame, notices: [Notice(level: .error, code: "no-back", message: "First screen", fix: "press q")]
            )
        }
        let (input, continuation) = AsyncStream<String>.makeStream()
        continuation.yield("back")
        continuation.yield("jump")
        continuation.finish()
        let output = LineCollector()
        await PlainTextUI(driver: driver, input: input, output: output.write, settle: .zero).run()
        #expect(output.lines.count == 3)
        #expect(output.lines[0] == PlainTextRenderer.render(Fixtures.characters))
        #expect(output.lines[1] == "! First screen (press q)")
        #expect(output.lines[2].hasPrefix("! input line 2 is not a command: 'jump' is not a command"))
    }
}

/// A frame line did not decode to the screen the test built.
private struct AppFrameError: Error {}

extension Frame {
    fileprivate var maskingSecureText: Frame {
        var frame = self
        frame.screen = screen.maskingSecureText
        return frame
    }

    fileprivate func with(account: String?) -> Frame {
        var frame = self
        frame.account = account
        return frame
    }
}
