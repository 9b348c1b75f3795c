import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What the layers above learn about paths without calling the system themselves: whether a path names a folder or
/// a file, this process's executable, and a path as the kernel names a mapped file.
package enum FileFacts {
    /// What a path names (links followed).
    package enum Kind: Sendable, Equatable {
        /// A folder.
        case folder
        /// Anything else that exists: a regular file, a device, a socket.
        case file
    }

    /// What `path` names, links followed; nil when nothing is there.
    package static func kind(of path: String) -> Kind? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return nil }
        return isFolder.boolValue ? .folder : .file
    }

    /// Whether anything is at `path` (links followed).
    package static func exists(_ path: String) -> Bool { kind(of: path) != nil }

    /// The size in bytes of the file at `path` (links followed), nil when there is none.
    package static func size(of path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
    }

    /// The running executable, symbolic links resolved (`/proc/self/exe`).
    package static var executable: URL { URL(fileURLWithPath: executablePath) }

    /// The running executable's path as the kernel names it, with one `readlink` of `/proc/self/exe` (resolving the
    /// link a component at a time cost a start a dozen system calls and 30 k instructions, and a start asks three times).
    package static var executablePath: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` with symbolic links, `.` and `..` resolved, as the kernel names a mapped file; `path` itself when it
    /// cannot be resolved (gone).
    package static func canonicalPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
