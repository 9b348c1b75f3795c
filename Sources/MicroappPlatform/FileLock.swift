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

    /// Runs `body` holding the file lock on `path` (created when missing), waiting while others hold it; nil
    /// without running it when the file cannot be opened.
    package static func waitingForExclusiveLock<Result>(_ path: String, _ body: () -> Result) -> Result? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { return nil }
        }
        return body()
    }

    /// Runs `body` holding the file lock `<path>.lock` beside the file `body` edits, so edits of one file by several
    /// processes do not overwrite each other. The lock file is made readable by its owner only (`flock` needs no write
    /// access: another user who could open it could hold it for ever), never through a symbolic link; the lock is
    /// waited for at most `patience`, and `body` then runs without it, as it does when the lock file cannot be made (a
    /// read-only folder): a holder that hangs, or someone else's, costs an edit its merge, never the caller's start.
    package static func editing<Result>(
        beside path: String, patience: Duration = .seconds(2), _ body: () -> Result
    ) -> Result {
        let descriptor = open(path + ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return body() }
        defer { close(descriptor) }
        let deadline = ContinuousClock.now + patience
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else { return body() }
            usleep(5_000)
        }
        return body()
    }

    /// Runs `body` holding a shared file lock on each of `paths` that exists (never creating one: a reader may not
    /// write there), waiting while a writer holds one: readers share, a writer waits for them and they for it.
    package static func withSharedLocks<Result>(_ paths: [String], _ body: () -> Result) -> Result {
        let descriptors = paths.map { open($0, O_RDONLY | O_CLOEXEC) }.filter { $0 >= 0 }
        defer { descriptors.forEach { close($0) } }
        for descriptor in descriptors {
            while flock(descriptor, LOCK_SH) != 0 && errno == EINTR {}
        }
        return body()
    }

    /// Runs `body` holding the file lock on the folder `path` itself (nothing is created); nil without running it
    /// when someone else holds it or the folder cannot be opened.
    package static func withExclusiveFolderLock<Result>(_ path: String, _ body: () -> Result?) -> Result? {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return nil }
        return body()
    }
}
