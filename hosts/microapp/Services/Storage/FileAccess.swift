#if canImport(Glibc)
    import Glibc
#endif

/// Questions about files the storage layer asks before touching them.
enum FileAccess {
    /// Whether `path` exists.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether `path` is an existing directory.
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether `path` may be written. For root, who may write anything, a file or folder whose mode has no
    /// write bit at all still counts as read-only: that is what its owner asked for.
    static func isWritable(_ path: String) -> Bool {
        guard access(path, W_OK) == 0 else { return false }
        guard geteuid() == 0 else { return true }
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & 0o222 != 0
    }

    /// The permission bits of `path` (such as 0o600), nil when it does not exist.
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }
}
