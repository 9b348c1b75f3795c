#if canImport(Glibc)
    import Glibc
#endif

/// What changes whenever a file is written or replaced: its size, modification time and inode. Watchers and caches
/// compare stamps to tell a new version of a file from the one they saw.
package enum FileStamp {
    /// The stamp of the file `info` describes.
    package static func of(_ info: stat) -> [Int] {
        [Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_ino)]
    }

    /// The stamp of the file at `path`, nil when there is none.
    package static func of(path: String) -> [Int]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return of(info)
    }
}
