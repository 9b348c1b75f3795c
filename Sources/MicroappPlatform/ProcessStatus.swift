#if canImport(Glibc)
    import Glibc
#endif

/// What the host can learn of a process by its id alone.
package enum ProcessStatus {
    /// This process's id.
    package static var current: Int32 { getpid() }

    /// True when no process has `pid` (a process of another user still counts as existing).
    package static func isGone(_ pid: Int32) -> Bool { kill(pid, 0) != 0 && errno == ESRCH }

    /// True when `pid` has ended: gone, or a zombie its parent has not reaped yet (the state after the command's
    /// closing parenthesis in `/proc/PID/stat` is `Z` or `X`).
    package static func hasEnded(_ pid: Int32) -> Bool {
        guard let stat = Files.contents("/proc/\(pid)/stat").map({ String(decoding: $0, as: UTF8.self) }),
            let close = stat.lastIndex(of: ")")
        else { return true }
        let state = stat[stat.index(after: close)...].split(separator: " ").first
        return state == "Z" || state == "X"
    }
}
