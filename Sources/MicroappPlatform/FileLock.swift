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

    /// Runs `body` holding the file lock `beside` (a file next to what `body` edits; created when missing), waiting
    /// while others hold it, so edits of one file by several processes do not overwrite each other; without the lock
    /// when its file cannot be made (a read-only folder: `body` then fails or succeeds as it would alone).
    package static func editing<Result>(beside path: String, _ body: () -> Result) -> Result {
        waitingForExclusiveLock(path + ".lock", body) ?? body()
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
