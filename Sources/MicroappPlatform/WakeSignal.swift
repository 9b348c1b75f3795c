#if canImport(Glibc)
    import Glibc
#endif

/// A wake-up another thread can give a thread that waits on the kernel (a socket pair): the watcher's loop waits on its
/// events and this at once, so `stop()` ends the wait at once and nothing wakes on a timer to look. Any thread may
/// signal; one thread waits.
package final class WakeSignal: Sendable {
    /// The end waited on, readable once signalled; both ends close with the value.
    let descriptor: Int32
    private let writer: Int32

    /// A new signal, not given; nil when no socket pair can be made (the caller then wakes on a timer).
    package init?() {
        var ends: [Int32] = [-1, -1]
        let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, kind, 0, &ends) == 0 else { return nil }
        (descriptor, writer) = (ends[0], ends[1])
    }

    deinit {
        close(descriptor)
        close(writer)
    }

    /// Wakes the waiter (now, or at its next wait); signals before a wait are one.
    package func signal() {
        var one: UInt8 = 1
        _ = try? SystemCall.run("write") { write(writer, &one, 1) }
    }

    /// Waits up to `timeout` (nil: for ever) for `signal()`; true when it came, and then it is taken.
    @discardableResult
    package func wait(upTo timeout: Duration?) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        _ = try? SystemCall.run("poll") { poll(&poller, 1, WakeSignal.milliseconds(timeout)) }
        return take()
    }

    /// Waits `duration` with no signal to end it: for a waiter whose kernel gave no eventfd.
    package static func pause(_ duration: Duration) {
        _ = poll(nil, 0, milliseconds(duration))
    }

    /// Takes a signal given, if any; true when there was one.
    func take() -> Bool {
        var bytes = [UInt8](repeating: 0, count: 64)
        var taken = false
        while bytes.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 { taken = true }
        return taken
    }

    /// `timeout` for `poll`: whole milliseconds rounded up (a wait never ends early), -1 for nil.
    static func milliseconds(_ timeout: Duration?) -> Int32 {
        guard let timeout else { return -1 }
        let (seconds, attoseconds) = timeout.components
        let total = max(0, seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        return Int32(min(total, Int64(Int32.max)))
    }
}
