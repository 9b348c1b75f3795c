#if canImport(Glibc)
    import Glibc
#endif

/// What the host can learn of a process by its id alone.
package enum ProcessStatus {
    /// This process's id.
    package static var current: Int32 { getpid() }

    /// True when no process has `pid` (a process of another user still counts as existing).
    package static func isGone(_ pid: Int32) -> Bool { kill(pid, 0) != 0 && errno == ESRCH }
}
