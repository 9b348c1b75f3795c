#if canImport(Glibc)
    import Glibc
#endif

/// A file lock: an exclusive advisory lock on a file (`flock`; not the plugin lock, `PluginLock`), which conflicts
/// between processes and between descriptors of one process alike: at most one holder at a time, nobody waits.
package enum FileLock {
    /// Runs `body` holding the file lock on `path` (created when missing) and answers its result; nil without running
    /// it when someone else holds that file lock or the file cannot be opened.
    package static func withExclusiveLock<Result>(_ path: String, _ body: () -> Result?) -> Result? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return nil }
        return body()
    }
}
