import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The newest modification time in a source tree, read through a record of its folders and files kept between
/// starts: a check that finds nothing changed stats each recorded folder and file once and lists no folder.
///
/// A folder's modification time moves when an entry in it is added, removed or renamed (an editor's save by rename
/// included), never when a file in it is written in place, so a stamp of the folders alone would miss an in-place
/// save in a nested file: each recorded file is stat'ed too. A recorded folder whose time moved (or that is gone or
/// back) means the record may lack a file: the tree is walked again and the record rewritten.
package enum SourceTreeStamp {
    /// The newest modification time (nanoseconds since 1970) of the folders `roots` and every folder and file under
    /// them (hidden ones skipped), 0 when there is none; reads and, when the tree's entries changed, rewrites the
    /// record at `record` (kept where the build keeps its state; a record that cannot be written only costs a walk).
    package static func newest(under roots: [String], record: String) -> Int {
        if let recorded = Record(file: record, roots: roots), let newest = recorded.newest() { return newest }
        let walked = Record(walking: roots)
        walked.save(record)
        return max(walked.folders.values.max() ?? 0, walked.files.values.max() ?? 0, 0)
    }

    /// The folders (with their modification times, -1 when missing) and files of a tree.
    struct Record {
        var roots: [String]
        var folders: [String: Int] = [:]
        var files: [String: Int] = [:]

        /// The tree under `roots` as it is now.
        init(walking roots: [String]) {
            self.roots = roots
            for root in roots { visit(root) }
        }

        /// The record kept at `file` for `roots`; nil when there is none, or it was made for other roots.
        init?(file: String, roots: [String]) {
            guard let data = FileManager.default.contents(atPath: file) else { return nil }
            self.roots = []
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
                let parts = line.split(separator: " ", maxSplits: 2)
                guard parts.count >= 2 else { return nil }
                switch parts[0] {
                case "r": self.roots.append(String(line.dropFirst(2)))
                case "f": files[String(line.dropFirst(2))] = 0
                case "d" where parts.count == 3: folders[String(parts[2])] = Int(parts[1]) ?? .min
                default: return nil
                }
            }
            guard self.roots == roots else { return nil }
        }

        /// The newest modification time of the recorded folders and files as they are now; nil when a folder's
        /// time differs from the recorded one or a file is gone (the record may lack an entry: walk again).
        func newest() -> Int? {
            var newest = 0
            for (folder, recorded) in folders {
                guard Self.modified(folder) == recorded else { return nil }
                newest = max(newest, recorded)
            }
            for file in files.keys {
                let modified = Self.modified(file)
                guard modified >= 0 else { return nil }
                newest = max(newest, modified)
            }
            return newest
        }

        /// Writes the record to `file` (atomically: two starts at once each leave a whole record).
        func save(_ file: String) {
            var text = roots.map { "r \($0)\n" }.joined()
            text += folders.map { "d \($0.value) \($0.key)\n" }.joined()
            text += files.keys.map { "f \($0)\n" }.joined()
            try? Data(text.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
        }

        private mutating func visit(_ folder: String) {
            folders[folder] = Self.modified(folder)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where !name.hasPrefix(".")
            {
                let path = folder + "/" + name
                var info = stat()
                guard stat(path, &info) == 0 else { continue }
                if info.st_mode & S_IFMT == S_IFDIR {
                    visit(path)
                } else {
                    files[path] = info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec
                }
            }
        }

        /// The modification time of `path` in nanoseconds since 1970; -1 when there is nothing there.
        private static func modified(_ path: String) -> Int {
            var info = stat()
            guard stat(path, &info) == 0 else { return -1 }
            return info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec
        }
    }
}
