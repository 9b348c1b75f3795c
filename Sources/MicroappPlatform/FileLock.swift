#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive advisory lock on a file (`flock`), which conflicts between processes and between descriptors of
/// one process alike: at most one holder at a time, nobody waits.
package enum FileLock {
    /// Runs `body` holding the lock on `path` (created when missing) and answers its result; nil without running it
    /// when someone else holds the lock or the file cannot be opened.
    package static func withExclusiveLock<Result>(_ path: String, _ body: () -> Result?) -> Result? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return nil }
        return body()
    }
}
