import MicroappHost
import MicroappTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// The front end a command hands its app to: `--ui terminal|text|json`.
enum FrontEnd: String {
    case terminal, text, json

    /// The front end asked for, or the default: terminal on a TTY, text otherwise.
    static func choose(_ requested: String?) throws(UsageError) -> FrontEnd {
        guard let requested else { return isatty(0) == 1 && isatty(1) == 1 ? .terminal : .text }
        guard let ui = FrontEnd(rawValue: requested) else {
            throw UsageError("--ui \(requested) is not a front end", fix: "use --ui terminal, --ui text or --ui json")
        }
        return ui
    }

    /// Runs `driver` until the person quits or stdin ends.
    @MainActor
    func run(_ driver: any AppDriver) async {
        switch self {
        case .json: await JSONLinesDriver(driver: driver).run()
        case .text: await PlainTextUI(driver: driver).run()
        case .terminal:
            if TerminalUI.isAvailable {
                await TerminalUI(driver: driver).run()
            } else {
                await PlainTextUI(driver: driver).run()
            }
        }
    }
}
