import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Folders a host process names after itself (`microapp-pinned-<pid>`, `microapp-feature-<pid>-XXXXXX`,
/// `microapp-loaded-<pid>-XXXXXX`) and removes
/// when it ends: a host that was killed leaves them behind. The next host removes those of processes that are gone,
/// and nothing else: only real folders (never a symbolic link or what it points to), owned by this user, whose
/// process no longer exists.
public enum LeftoverFolders {
    /// The name prefixes of the folders isolated features leave in the temporary folder.
    public static let prefixes = ["microapp-pinned-", "microapp-feature-", LibraryCopy.loadedFolderPrefix]

    /// Starts, once per process (at its first private copy or first child), the removal of what killed hosts left in
    /// the temporary folder, on a thread of its own: a temporary folder of thousands of entries takes milliseconds to
    /// list, which nothing waits for.
    static let sweptOnce: Void = {
        Thread.detachNewThread { removeStale(in: HostScratch.folder) }
    }()

    /// Removes the leftover folders in `directory` whose names start with one of `prefixes` followed by the pid of a
    /// process that no longer exists; answers the paths removed. Blocks on the file system: not on the main actor.
    @discardableResult
    public static func removeStale(in directory: String, prefixes: [String] = prefixes) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var removed: [String] = []
        for name in names {
            guard let pid = owner(of: name, prefixes: prefixes), ProcessStatus.isGone(pid) else { continue }
            let path = (directory as NSString).appendingPathComponent(name)
            guard isOwnFolder(path) else { continue }
            // In a sticky temporary folder only its owner (this user) can rename or replace the entry checked above.
            if (try? FileManager.default.removeItem(atPath: path)) != nil { removed.append(path) }
        }
        return removed
    }

    /// The pid in `name` after one of `prefixes` (up to the next `-` or the end), nil for any other name.
    static func owner(of name: String, prefixes: [String]) -> pid_t? {
        guard let prefix = prefixes.first(where: name.hasPrefix) else { return nil }
        let digits = name.dropFirst(prefix.count).prefix { $0 != "-" }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let pid = pid_t(digits), pid > 0 else { return nil }
        return pid
    }

    /// True for a directory itself (not a link to one) owned by this process's user.
    private static func isOwnFolder(_ path: String) -> Bool {
        var status = stat()
        guard lstat(path, &status) == 0 else { return false }
        return (status.st_mode & S_IFMT) == S_IFDIR && status.st_uid == getuid()
    }
}
