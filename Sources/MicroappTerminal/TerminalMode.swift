import Foundation
import Glibc

/// The terminal settings before raw mode, for the signal and exit handlers that must put them back.
/// `nonisolated(unsafe)`: a signal handler cannot take a lock or hop to an actor; it is written once on the
/// main actor before the handlers are installed and only read afterwards.
nonisolated(unsafe) private var savedSettings = termios()
/// Whether `savedSettings` holds settings to restore; same reasoning as above.
nonisolated(unsafe) private var hasSavedSettings = false

/// Puts the terminal back: cursor shown, attributes reset, main screen, saved settings. Only async-signal-safe
/// calls (`write`, `tcsetattr`), so signal handlers may call it.
private func restoreTerminal() {
    let reset = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"
    _ = reset.utf8CString.withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count - 1) }
    if hasSavedSettings { _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedSettings) }
}

/// Restores the terminal, then dies of the same signal so the parent sees why the process ended.
private func restoreAndReraise(_ signalNumber: Int32) {
    restoreTerminal()
    signal(signalNumber, SIG_DFL)
    raise(signalNumber)
}

/// Raw mode on the alternate screen with the cursor hidden, and the way back. The terminal is restored by
/// `restore()`, at exit, and on SIGINT, SIGTERM, SIGHUP and SIGQUIT, whichever comes first.
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
        Self.installHandlers()
        StandardStreams.write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J\u{1B}[H")
    }

    /// Leaves raw mode and the alternate screen; safe to call more than once.
    func restore() {
        guard isActive else { return }
        isActive = false
        restoreTerminal()
        hasSavedSettings = false
    }

    /// The terminal's size in columns and rows, 80×24 when it cannot be read.
    static func size() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    private static var handlersInstalled = false

    private static func installHandlers() {
        guard !handlersInstalled else { return }
        handlersInstalled = true
        atexit { if hasSavedSettings { restoreTerminal() } }
        for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            signal(signalNumber) { restoreAndReraise($0) }
        }
    }
}
