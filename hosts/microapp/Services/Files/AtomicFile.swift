import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Replaces a file all at once: a temporary file in the same folder is written, flushed to disk and renamed
/// over the old one, then the folder itself is flushed. A crash at any moment leaves the old file or the new
/// one, never half of either; at worst a temporary file named `.NAME.PID.RANDOM.tmp` stays behind.
enum AtomicFile {
    /// Writes `data` to `path` with permission bits `mode` (such as 0o600).
    static func write(_ data: Data, to path: String, mode: mode_t) throws(StorageError) {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary = "\(folder)/.\(name).\(getpid()).\(UInt32.random(in: .min ... .max)).tmp"
        let file = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard file >= 0 else { throw failure(path, "cannot be created") }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(file) }
            guard fchmod(file, mode) == 0 else { throw failure(path, "cannot be given its permissions") }
            try writeAll(data, to: file, path: path)
            guard fsync(file) == 0 else { throw failure(path, "cannot be flushed to disk") }
        }
        guard rename(temporary, path) == 0 else { throw failure(path, "cannot replace the old one") }
        renamed = true
        try syncFolder(folder)
    }

    /// Removes `path` (a missing file is fine) and flushes its folder.
    static func remove(_ path: String) throws(StorageError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw failure(path, "cannot be removed") }
        try syncFolder((path as NSString).deletingLastPathComponent)
    }

    /// Removes temporary files of `path` left by processes that no longer run.
    static func removeLeftovers(of path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let prefix = ".\((path as NSString).lastPathComponent)."
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let fields = name.dropFirst(prefix.count).split(separator: ".")
            guard let pid = fields.first.flatMap({ pid_t($0) }), kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink("\(folder)/\(name)")
        }
    }

    private static func writeAll(_ data: Data, to file: Int32, path: String) throws(StorageError) {
        let result = data.withUnsafeBytes { buffer -> Int32 in
            var written = 0
            while written < buffer.count {
                let count = Glibc.write(file, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return errno == 0 ? EIO : errno }
                written += count
            }
            return 0
        }
        guard result == 0 else { throw failure(path, "cannot be written", errno: result) }
    }

    private static func syncFolder(_ folder: String) throws(StorageError) {
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw failure(folder, "cannot be opened to flush it") }
        defer { close(directory) }
        guard fsync(directory) == 0 else { throw failure(folder, "cannot be flushed to disk") }
    }

    private static func failure(_ path: String, _ what: String, errno code: Int32 = errno) -> StorageError {
        let kind: StorageError.Kind =
            switch code {
            case ENOSPC, EDQUOT: .diskFull
            case EACCES, EPERM, EROFS: .readOnly
            default: .io
            }
        return StorageError.system(
            kind, file: path, reason: "the file \(what)", errno: code,
            fix: kind == .diskFull
                ? "free some disk space and try again"
                : "make its folder writable (chmod u+rwx \((path as NSString).deletingLastPathComponent)) "
                    + "or choose another data directory with --data DIR")
    }
}
