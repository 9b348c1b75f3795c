import MicroappHost
import MicroappSDK

/// The loop shared by the line-based front ends (`--ui json`, `--ui text`): write the first frame, turn each
/// input line into an event for the driver, write every changed frame and every notice, and end at EOF once
/// the app has settled, or when it quits.
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
    /// After EOF, the longest wait for a loading screen to finish.
    let settleLimit: Duration
    private var lastFrame: Frame?
    private var lastActivity = ContinuousClock.now
    private let clock = ContinuousClock()

    init(
        driver: any AppDriver, input: AsyncStream<String>, output: @escaping (String) -> Void, format: Format,
        settle: Duration, settleLimit: Duration
    ) {
        self.driver = driver
        self.input = input
        self.output = output
        self.format = format
        self.settle = settle
        self.settleLimit = settleLimit
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
        for await item in inputs {
            guard case .line(let line) = item else { break }
            lineNumber += 1
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            switch format.parse(line) {
            case .success(let event):
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
        for notice in notices { output(format.notice(notice)) }
        guard frame != lastFrame else { return }
        lastFrame = frame
        output(format.frame(frame))
    }

    /// Waits until nothing changed for `settle` and the screen is not loading, at most `settleLimit`.
    private func waitUntilSettled() async {
        let deadline = clock.now.advanced(by: settleLimit)
        while !driver.hasQuit, clock.now < deadline {
            await Task.yield()
            let isLoading = if case .loading = driver.frame.screen.state { true } else { false }
            if !isLoading, clock.now >= lastActivity.advanced(by: settle) { return }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
