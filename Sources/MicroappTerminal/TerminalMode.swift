import Foundation
import Glibc

/// The terminal settings before raw mode, for the signal and exit handlers that must put them back.
/// `nonisolated(unsafe)`: a signal handler cannot take a lock or hop to an actor; it is written on the main
/// actor before raw mode starts and only read while it lasts.
nonisolated(unsafe) private var savedSettings = termios()
/// Whether `savedSettings` holds settings to restore; same reasoning as above.
nonisolated(unsafe) private var hasSavedSettings = false
/// Whether the terminal is in raw mode on the alternate screen now; same reasoning as above.
nonisolated(unsafe) private var needsRestore = false

/// Puts the terminal back if this process changed it: attributes reset, cursor shown, main screen, saved
/// settings. Only async-signal-safe calls (`write`, `tcsetattr`, no allocation), so signal handlers may call it.
private func restoreTerminal() {
    guard needsRestore else { return }
    needsRestore = false
    let reset: StaticString = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"
    _ = write(STDOUT_FILENO, reset.utf8Start, reset.utf8CodeUnitCount)
    if hasSavedSettings { _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedSettings) }
}

/// The signals that end a process and must not leave the terminal in raw mode.
private let endingSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
/// What those signals did before raw mode, to hand them on; same reasoning as `savedSettings`.
nonisolated(unsafe) private var previousActions = [SignalAction](repeating: SignalAction(), count: 4)
/// The `sigaction` struct (the name alone also means the function).
private typealias SignalAction = sigaction

/// Restores the terminal, puts back what the signal did before and raises it again, so the process ends (or
/// the previous handler runs) as it would have without raw mode.
private func restoreAndReraise(_ signalNumber: Int32) {
    restoreTerminal()
    if let index = endingSignals.firstIndex(of: signalNumber) {
        _ = sigaction(signalNumber, &previousActions[index], nil)
    } else {
        signal(signalNumber, SIG_DFL)
    }
    raise(signalNumber)
}

/// Raw mode on the alternate screen with the cursor hidden, and the way back. The terminal is restored by
/// `restore()`, at exit, and on SIGINT, SIGTERM, SIGHUP and SIGQUIT, whichever comes first; the signals'
/// previous handlers are put back by `restore()`.
@MainActor
final class TerminalMode {
    private var isActive = false

    /// True when stdin and stdout are both terminals.
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// Switches to raw input (no echo, no line editing, Ctrl-C as a key) and the alternate screen.
    func enter() {
        guard !isActive else { return }
        isActive = true
        var settings = termios()
        hasSavedSettings = false
        if tcgetattr(STDIN_FILENO, &settings) == 0 {
            savedSettings = settings
            hasSavedSettings = true
            settings.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
            settings.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
            settings.c_cflag |= tcflag_t(CS8)
            withUnsafeMutableBytes(of: &settings.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
        }
        Self.installExitHandler()
        for (index, signalNumber) in endingSignals.enumerated() {
            var action = SignalAction()
            action.__sigaction_handler.sa_handler = { restoreAndReraise($0) }
            sigemptyset(&action.sa_mask)
            _ = sigaction(signalNumber, &action, &previousActions[index])
        }
        needsRestore = true
        StandardStreams.write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J\u{1B}[H")
    }

    /// Leaves raw mode and the alternate screen; safe to call more than once.
    func restore() {
        guard isActive else { return }
        isActive = false
        restoreTerminal()
        for (index, signalNumber) in endingSignals.enumerated() {
            _ = sigaction(signalNumber, &previousActions[index], nil)
        }
    }

    /// The terminal's size in columns and rows, 80×24 when it cannot be read.
    static func size() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    private static var exitHandlerInstalled = false

    private static func installExitHandler() {
        guard !exitHandlerInstalled else { return }
        exitHandlerInstalled = true
        atexit { restoreTerminal() }
    }
}
