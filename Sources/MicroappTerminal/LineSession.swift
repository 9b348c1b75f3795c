import MicroappCore
import MicroappSDK

/// The loop shared by the line-based front ends (`--ui json`, `--ui text`): write the first frame, turn each
/// input line into an event for the driver, write every changed frame and every notice, and end at EOF once
/// the app has settled, or when it quits.
///
/// Each event, of every kind, is held until the app has settled (`AppDriver.unsettledReason` is nil: no loading
/// screen, no redraw or swap pending), so a script piped in at once acts like a person who waits for each screen;
/// after `settleTimeout` the event is dropped and answered with a `not-settled` error instead.
@MainActor
final class LineSession {
    /// How lines look in one front end.
    struct Format {
        /// The line for a frame.
        var frame: (Frame) -> String
        /// The line for a notice.
        var notice: (Notice) -> String
        /// An input line as an event, or why it is not one.
        var parse: (String) -> Result<Event, EventLineParser.ParseFailure>
        /// The line for an input line that is not an event: its number, the line and the reason.
        var badLine: (Int, String, String) -> String
    }

    private enum Input {
        case line(String)
        case end
    }

    let driver: any AppDriver
    let input: AsyncStream<String>
    let output: (String) -> Void
    let format: Format
    /// After EOF, how long the app must stay quiet (no update) before the run ends.
    let settle: Duration
    /// The longest wait for the app to settle, before each event and after EOF.
    let settleTimeout: Duration
    private var lastFrame: Frame?
    /// Fired at each update, for events waiting for the app to settle.
    private let updates = RedrawSignal()
    private var lastActivity = ContinuousClock.now
    private let clock = ContinuousClock()

    init(
        driver: any AppDriver, input: AsyncStream<String>, output: @escaping (String) -> Void, format: Format,
        settle: Duration, settleTimeout: Duration
    ) {
        self.driver = driver
        self.input = input
        self.output = output
        self.format = format
        self.settle = settle
        self.settleTimeout = settleTimeout
    }

    func run() async {
        let (inputs, continuation) = AsyncStream<Input>.makeStream()
        let forwarding = Task { [input] in
            for await line in input { continuation.yield(.line(line)) }
            continuation.yield(.end)
        }
        defer { forwarding.cancel() }
        driver.onUpdate = { [weak self] frame, notices in
            guard let self else { return }
            self.publish(frame, notices)
            if self.driver.hasQuit { continuation.yield(.end) }
        }
        defer { driver.onUpdate = nil }
        publish(driver.frame, [])
        var lineNumber = 0
        reading: for await item in inputs {
            guard case .line(let line) = item else { break }
            lineNumber += 1
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            switch format.parse(line) {
            case .success(let event):
                if let reason = await unsettledReason(after: settleTimeout) {
                    output(format.notice(notSettled(event, reason)))
                    // Ending the run stays possible: EOF would end it too.
                    if event == .quit { break reading }
                    continue
                }
                lastActivity = clock.now
                driver.send(event)
                // Let the update this event scheduled run, so each event's frame is written before the next.
                await Task.yield()
            case .failure(let failure):
                output(format.badLine(lineNumber, line, failure.reason))
            }
            if driver.hasQuit { break }
        }
        await waitUntilSettled()
    }

    /// Writes the notices, then the frame unless it is the one written last.
    func publish(_ frame: Frame, _ notices: [Notice]) {
        lastActivity = clock.now
        defer { updates.fire() }
        for notice in notices { output(format.notice(notice)) }
        guard frame != lastFrame else { return }
        lastFrame = frame
        output(format.frame(frame))
    }

    /// Waits, update by update, until the app has settled; returns why it has not when `limit` passed first.
    private func unsettledReason(after limit: Duration) async -> String? {
        let deadline = clock.now.advanced(by: limit)
        while let reason = driver.unsettledReason {
            guard clock.now < deadline else { return reason }
            await updates.wait(until: deadline)
        }
        return nil
    }

    /// The answer to an event that waited `settleTimeout` for the app to settle: it names the event and what
    /// was still going on.
    private func notSettled(_ event: Event, _ reason: String) -> Notice {
        Notice(
            level: .error, code: .notSettled,
            message:
                "\(event.summary) was not delivered: the app did not settle within \(settleTimeout.seconds) s (\(reason))",
            fix:
                "wait for the screen to finish what it does before sending more, or give it longer with --settle-timeout SECONDS"
        )
    }

    /// Waits until the app has settled and nothing changed for `settle`, at most `settleTimeout`.
    private func waitUntilSettled() async {
        let deadline = clock.now.advanced(by: settleTimeout)
        while !driver.hasQuit, clock.now < deadline {
            await Task.yield()
            if driver.unsettledReason == nil, clock.now >= lastActivity.advanced(by: settle) { return }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}

extension Event {
    /// The event in a few words for messages (`select row 0 of 'characters'`); typed text is not repeated.
    var summary: String {
        switch self {
        case .action(.tap(let id)): "tap '\(id)'"
        case .action(.input(let id, let text)): "input of \(text.count) characters into '\(id)'"
        case .action(.select(let id, let index)): "select row \(index) of '\(id)'"
        case .action: "an action"  // one a newer SDK added (Action is not frozen)
        case .back: "back"
        case .open(let url): "open \(url)"
        case .rollback(let feature): "rollback of \(feature)"
        case .checkUpdates: "an update check"
        case .quit: "quit"
        }
    }
}

extension Duration {
    /// Whole seconds, or seconds with decimals when not whole (`10`, `0.5`).
    var seconds: String {
        components.attoseconds == 0 ? "\(components.seconds)" : String(timeInterval)
    }
}
