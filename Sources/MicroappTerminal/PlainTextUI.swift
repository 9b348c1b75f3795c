import MicroappCore
import MicroappSDK

/// The `--ui text` front end for logs and pipes: prints each new frame once with `PlainTextRenderer` (a blank
/// line between frames), notices as `! message (fix)` / `· message`, and reads commands from stdin
/// (`tap sign-in`, `input email rick@example.com`, `select characters 2`, `back`, `open URL`, `quit`, or JSON
/// events). EOF ends the run once the app has settled.
@MainActor
public final class PlainTextUI {
    private let session: LineSession

    /// Drives `driver` from `input` (stdin by default), writing with `output` (stdout by default) at `width`.
    public init(
        driver: any AppDriver, width: Int = 80, input: AsyncStream<String>? = nil,
        output: ((String) -> Void)? = nil, settle: Duration = .milliseconds(300),
        settleTimeout: Duration = .seconds(10)
    ) {
        var framesWritten = 0
        let format = LineSession.Format(
            frame: { frame in
                framesWritten += 1
                let text = PlainTextRenderer.render(frame, width: width)
                return framesWritten == 1 ? text : "\n" + text
            },
            notice: PlainTextRenderer.render(_:),
            parse: EventLineParser.parseCommand,
            badLine: { number, line, reason in
                PlainTextRenderer.render(
                    Notice(
                        level: .error, code: .badEvent, message: "input line \(number) is not a command: \(reason)",
                        fix: "one per line: \(EventLineParser.commandHelp)"))
            })
        session = LineSession(
            driver: driver, input: input ?? StandardStreams.inputLines(), output: output ?? StandardStreams.writeLine,
            format: format, settle: settle, settleTimeout: settleTimeout)
    }

    /// Prints the first frame, then handles input until EOF or quit.
    public func run() async {
        await session.run()
    }
}
