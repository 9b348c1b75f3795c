import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

/// The front end a host hands its app to: `--ui terminal|text|json`.
public enum FrontEnd: String, Sendable, CaseIterable {
    /// The interactive terminal UI.
    case terminal
    /// Plain text frames, commands on stdin.
    case text
    /// JSON lines in and out.
    case json
    /// A page in a browser on loopback (MicroappWeb serves it; the tool starts it, and `run` here draws plain text).
    case web

    /// The front end asked for, the default when nil (terminal on a TTY, text otherwise), or nil when `requested`
    /// names none.
    public static func choose(_ requested: String?) -> FrontEnd? {
        guard let requested else { return isatty(0) == 1 && isatty(1) == 1 ? .terminal : .text }
        return FrontEnd(rawValue: requested)
    }

    /// Runs `driver` until the person quits or stdin ends; the line front ends wait up to `settleTimeout` for the
    /// app to settle before each event; the terminal draws in colour unless `environment` says not to.
    @MainActor
    public func run(
        _ driver: any AppDriver, settleTimeout: Duration = .seconds(10), environment: [String: String]
    ) async {
        switch self {
        case .json: await JSONLinesDriver(driver: driver, settleTimeout: settleTimeout).run()
        case .text, .web: await PlainTextUI(driver: driver, settleTimeout: settleTimeout).run()
        case .terminal:
            if TerminalUI.isAvailable {
                await TerminalUI(driver: driver, color: TerminalUI.colorAllowed(environment: environment)).run()
            } else {
                await PlainTextUI(driver: driver, settleTimeout: settleTimeout).run()
            }
        }
    }
}
