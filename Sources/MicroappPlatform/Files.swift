import Foundation
import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

/// The file operations the layers above the system layer need (the capability modules' records, caches and kept
/// versions, the dev loop's builds, the tool's scaffolding and removal, the SDK's installation), in one place: they
/// call these, never `FileManager`, Foundation's readers and writers of files or the C library, and the layer test
/// holds them to it (`onlyTheSystemLayerCallsTheSystem`). Each is the plain operation, answering nil, false or an
/// empty list where it cannot.
package enum Files {
    /// True when something is at `path` (a symbolic link is followed).
    package static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// True when `path` is a folder (a symbolic link to one counts).
    package static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// True when `path` is a file this process may execute.
    package static func isExecutable(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// A `/proc` file read to its end ("" when it cannot be opened): its size says 0, so Foundation's readers, which
    /// trust the size, see nothing or stop after one read (`/proc/self/maps` beyond its first page).
    package static func procText(_ path: String) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes of the file at `path`, nil when it cannot be read.
    package static func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// The text of the file at `path` (UTF-8), nil when it cannot be read or is not text.
    package static func text(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    /// Makes `data` the file at `path`, whole or not at all (written beside it, then renamed over it); throws why not.
    package static func replace(_ path: String, with data: Data) throws {
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// Makes `data` the file at `path`, whole or not at all, as `replace` does but without flushing it to the disk: for
    /// a record that only has to outlive a process, not the machine (Foundation's atomic write calls fsync, which cost
    /// a supervised start two waits on the disk before its first frame). Throws why not.
    package static func replaceUnflushed(_ path: String, with data: Data) throws(Problem) {
        let temporary = path + ".writing-\(getpid())"
        if let problem = write(data, toNew: temporary, mode: 0o600, flushed: false) { throw problem }
        guard rename(temporary, path) == 0 else {
            let error = SystemCallError(call: "rename", path: path, errno: errno)
            unlink(temporary)
            throw error.problem
        }
    }

    /// Writes `data` as the file at `path` in place (made with the umask's mode, or emptied first); throws why not.
    package static func create(_ path: String, with data: Data) throws {
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Writes `data` as the file at `path` with its modification date set to `modified`; false when it could not.
    @discardableResult
    package static func write(_ data: Data, to path: String, modified: Date) -> Bool {
        FileManager.default.createFile(atPath: path, contents: data, attributes: [.modificationDate: modified])
    }

    /// Writes `data` as the file at `path` (replacing one that is there); false when it could not.
    @discardableResult
    package static func write(_ data: Data, to path: String) -> Bool {
        FileManager.default.createFile(atPath: path, contents: data)
    }

    /// Makes the folder `path` and the missing ones above it, with `permissions` for each made (the umask's otherwise).
    package static func makeDirectory(_ path: String, permissions: Int? = nil) throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true,
            attributes: permissions.map { [.posixPermissions: $0] })
    }

    /// Removes the file or the folder tree at `path`; throws when it could not (a missing one included).
    package static func remove(_ path: String) throws { try FileManager.default.removeItem(atPath: path) }

    /// The names in the folder `path` (hidden ones included), unsorted; empty when it cannot be read.
    package static func names(in path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }

    /// The paths below the folder `path`, relative to it, every level deep; nil when it cannot be read.
    package static func subpaths(of path: String) -> [String]? {
        try? FileManager.default.subpathsOfDirectory(atPath: path)
    }

    /// When the file at `path` was last modified, nil when there is none.
    package static func modificationDate(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    /// True when `path` is a symbolic link itself (not followed); false when it is something else or nothing.
    package static func isSymbolicLink(_ path: String) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType == .typeSymbolicLink
    }

    /// Where the symbolic link at `path` points, nil when it is not one.
    package static func linkDestination(_ path: String) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: path)
    }

    /// Makes a symbolic link at `path` pointing to `destination` (as written: relative to the link's folder).
    package static func makeLink(_ path: String, to destination: String) throws {
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: destination)
    }

    /// Writes `bytes` to the new file `path` (replacing a leftover) with `mode` and flushes it to the disk before
    /// answering: nil, or the problem naming the call that failed. Renamed over a file, it replaces it durably.
    package static func writeDurably(_ bytes: Data, to path: String, mode: mode_t) -> Problem? {
        write(bytes, toNew: path, mode: mode, flushed: true)
    }

    /// Writes every one of `bytes` to `descriptor` (a short write goes on from where it stopped, an interrupted one is
    /// made again): 0, or the error number that stopped it (EIO for a write that wrote nothing).
    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        var offset = 0
        while offset < bytes.count {
            let count: Int
            do {
                count = try SystemCall.run("write") {
                    Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                }
            } catch {
                return error.errno
            }
            guard count > 0 else { return EIO }
            offset += count
        }
        return 0
    }

    /// Writes `bytes` to the new file `path` (replacing a leftover) with `mode`, flushed to the disk before answering
    /// when `flushed`: nil, or the problem naming the call that failed.
    private static func write(_ bytes: Data, toNew path: String, mode: mode_t, flushed: Bool) -> Problem? {
        unlink(path)
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { return SystemCallError(call: "open", path: path, errno: errno).problem }
        var failure = bytes.withUnsafeBytes { writeAll(descriptor, $0) }
        if failure == 0 && flushed && fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0 && failure == 0 { failure = errno }
        guard failure == 0 else {
            unlink(path)
            return SystemCallError(call: "write", path: path, errno: failure).problem
        }
        return nil
    }
}
