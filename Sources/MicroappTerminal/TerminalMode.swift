import CPlatform
import Foundation
import Glibc

/// What puts the terminal back: attributes reset, cursor shown, main screen.
let terminalRestoreBytes = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

/// Raw mode on the alternate screen with the cursor hidden, and the way back. The terminal is restored by
/// `restore()`, at exit, and on SIGINT, SIGTERM, SIGHUP and SIGQUIT, whichever comes first; the signals'
/// previous handlers are put back by `restore()`. The signal handlers are C (CPlatform's terminal guard): a handler
/// may interrupt malloc or a Swift runtime lock, so it may only make async-signal-safe calls on memory prepared
/// before it was installed; Swift arrays, lazily initialised globals and exclusivity checks are none of those.
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
        let readable = tcgetattr(STDIN_FILENO, &settings) == 0
        // Prepared before the handlers exist and before the terminal changes, so a signal at any point after this
        // finds everything it needs to put the terminal back.
        var saved = settings
        withUnsafePointer(to: &saved) { saved in
            terminalRestoreBytes.utf8CString.withUnsafeBufferPointer { bytes in
                microapp_terminal_guard_prepare(bytes.baseAddress, bytes.count - 1, readable ? saved : nil)
            }
        }
        Self.installExitHandler()
        _ = microapp_terminal_guard_install()
        if readable {
            settings.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
            settings.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
            settings.c_cflag |= tcflag_t(CS8)
            withUnsafeMutableBytes(of: &settings.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
        }
        StandardStreams.write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J\u{1B}[H")
    }

    /// Leaves raw mode and the alternate screen; safe to call more than once.
    func restore() {
        guard isActive else { return }
        isActive = false
        microapp_terminal_restore()
        microapp_terminal_guard_remove()
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
        atexit { microapp_terminal_restore() }
    }
}
