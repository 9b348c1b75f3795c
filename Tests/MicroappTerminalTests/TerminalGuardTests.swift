import CPlatform
import Glibc
import Testing

/// The C guard behind TerminalMode's signal handlers: they may only read memory prepared before they were installed
/// and make async-signal-safe calls, so what they write is copied in first and the restore happens once.
@Suite("Terminal guard", .serialized)
struct TerminalGuardTests {
    @Test("the bytes that put the terminal back are prepared before the handlers go in, and a restore spends them once")
    func preparedBeforeInstalledAndRestoredOnce() throws {
        let bytes = Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8).map { CChar(bitPattern: $0) }
        microapp_terminal_guard_prepare(bytes, bytes.count, nil)
        var pending = [CChar](repeating: 0, count: 64)
        #expect(microapp_terminal_guard_pending(&pending, pending.count) == bytes.count)
        #expect(Array(pending.prefix(bytes.count)) == bytes)

        var before = sigaction()
        #expect(sigaction(SIGTERM, nil, &before) == 0)
        #expect(microapp_terminal_guard_install() == 0)
        var during = sigaction()
        #expect(sigaction(SIGTERM, nil, &during) == 0)
        let installed = unsafeBitCast(during.__sigaction_handler.sa_handler, to: Int.self)
        #expect(installed != unsafeBitCast(before.__sigaction_handler.sa_handler, to: Int.self))
        microapp_terminal_guard_remove()
        var after = sigaction()
        #expect(sigaction(SIGTERM, nil, &after) == 0)
        #expect(
            unsafeBitCast(after.__sigaction_handler.sa_handler, to: Int.self)
                == unsafeBitCast(before.__sigaction_handler.sa_handler, to: Int.self))

        // An empty restore (nothing reaches this runner's output) disarms: a second one has nothing left to do.
        microapp_terminal_guard_prepare(bytes, 0, nil)
        microapp_terminal_restore()
        #expect(microapp_terminal_guard_pending(&pending, pending.count) == 0)
    }
}
