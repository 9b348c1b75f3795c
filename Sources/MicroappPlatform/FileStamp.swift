import Foundation

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

extension FileStamp {
    /// The modification time of `path` in nanoseconds since 1970, 0 when there is no file.
    package static func modified(_ path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec
    }

    /// The stamp of every file in `folders` for which `accept` is true, and in their subfolders (not hidden ones)
    /// when `recursive`: what a watcher without inotify compares from one scan to the next.
    package static func stamps(
        under folders: [String], recursive: Bool, accept: (String) -> Bool
    ) -> [String: [Int]] {
        var files: [String: [Int]] = [:]
        func visit(_ folder: String) {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                let path = (folder as NSString).appendingPathComponent(name)
                var info = stat()
                guard stat(path, &info) == 0 else { continue }
                if info.st_mode & S_IFMT == S_IFDIR {
                    if recursive && !name.hasPrefix(".") { visit(path) }
                } else if accept(path) {
                    files[path] = of(info)
                }
            }
        }
        folders.forEach(visit)
        return files
    }
}
