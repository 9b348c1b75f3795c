import Foundation
import MicroappCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Private copies of plugin libraries kept from one start to the next, named by the SHA-256 of their bytes, and what
/// each original's file identity was when its copy was made. A start that finds a library with the identity it had
/// then loads that copy and reads and hashes nothing: the copy's bytes are the bytes hashed, as for a fresh copy.
///
/// Why the identity is enough: it is the device, inode, size, modification and change times of the original, and the
/// change time (ctime) cannot be set by anyone: any write, rename over, `chmod`, `chown` or `utime` moves it. An
/// identity is remembered only when the original's ctime did not move while it was copied and is a second older than
/// the copy (racy-git's rule: a write in the same tick as the copy could leave the identity unchanged). Measured on
/// this machine kind (release, the four demo libraries, 2.7 MB): reading, hashing and copying them ~4.5 ms per start
/// (OpenSSL's first use ~0.5 ms of it), against ~0.1 ms for the `open`, `fstat`, `readlink` and `lstat` of the warm
/// path here. A sealed memfd instead of a file copy was the other option: it saves the file's creation but still
/// reads and hashes every byte on every start, and a feature's child could not map it by path.
///
/// The store is a folder only this user can open (0700, theirs, checked before use); its copies are 0500 and never
/// written again (a mapped file is never replaced: a new copy is linked in beside it).
public struct LibraryStore: Sendable {
    /// The folder the copies and identity links live in.
    public let folder: String

    /// The store in `folder`, made (0700) when missing; nil when it cannot be made or someone else could write it
    /// (then libraries are copied afresh into the process's own folder, as without a store).
    public init?(folder: String) {
        try? FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var info = stat()
        guard lstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid(),
            info.st_mode & 0o077 == 0
        else { return nil }
        self.folder = folder
    }

    /// The copy made from a file that had `identity` and was named `name`, with the digest of its bytes; nil when
    /// there is none, or it is not a 0500 regular file of this user's of the original's size.
    func copy(of identity: FileIdentity) -> (path: String, sha256: String)? {
        var buffer = [CChar](repeating: 0, count: 512)
        let link = path(identity.linkName)
        let count = readlink(link, &buffer, buffer.count - 1)
        guard count > 65 else { return nil }
        // `<64 hex digits>-<name>`, no `/`; checked by its bytes (Character properties cost a lookup each).
        let bytes = buffer[..<count].map { UInt8(bitPattern: $0) }
        let isHex = { (byte: UInt8) in (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) }
        guard !bytes.contains(UInt8(ascii: "/")), bytes[64] == UInt8(ascii: "-"), bytes[..<64].allSatisfy(isHex)
        else { return nil }
        let target = String(decoding: bytes, as: UTF8.self)
        let digest = String(decoding: bytes[..<64], as: UTF8.self)
        let copy = path(target)
        var info = stat()
        guard lstat(copy, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
            info.st_mode & 0o7777 == 0o500, Int64(info.st_size) == identity.size
        else { return nil }
        // Used now: the sweep keeps what a start used in the last week (the link's mtime says when).
        let utimeNow = (1 << 30) - 1  // UTIME_NOW, which Glibc's Swift overlay does not export
        var now = [timespec(tv_sec: 0, tv_nsec: utimeNow), timespec(tv_sec: 0, tv_nsec: utimeNow)]
        _ = utimensat(AT_FDCWD, link, &now, AT_SYMLINK_NOFOLLOW)
        return (copy, digest)
    }

    /// Links the finished copy at `made` (a temporary name in the store) under `<sha256>-<name>` and removes the
    /// temporary name; a copy of those bytes already there stays (it may be mapped). Answers the copy's path.
    func keep(_ made: String, sha256: String, name: String) -> String? {
        let final = path("\(sha256)-\(name)")
        defer { unlink(made) }
        guard link(made, final) == 0 || errno == EEXIST else { return nil }
        return final
    }

    /// Remembers that the original with `identity` has the bytes of the copy `<sha256>-<name>` (a symbolic link,
    /// replaced atomically), and now and then removes what no start used for a week.
    /// `now` is the new copy's ctime: the store's clock is the file system's.
    func remember(_ identity: FileIdentity, sha256: String, name: String, now: timespec) {
        let temporary = path("tmp-link-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        guard symlink("\(sha256)-\(name)", temporary) == 0 else { return }
        if rename(temporary, path(identity.linkName)) != 0 { unlink(temporary) }
        // Once per process and store: a start that stores many libraries lists the folder once, not once each.
        if Self.swept.withLock({ $0.insert(folder).inserted }) { sweep(now: Int(now.tv_sec)) }
    }

    /// The stores swept by this process.
    private static let swept = Mutex<Set<String>>([])

    /// A temporary file in the store to copy a library into (0600, opened for writing), and its path.
    func temporaryFile(for name: String) -> (descriptor: Int32, path: String)? {
        let made = path("tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))-\(name)")
        let descriptor = open(made, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        return descriptor < 0 ? nil : (descriptor, made)
    }

    /// Removes links and copies not used for a week (a link is touched when made and when a start uses it; a copy
    /// still linked to stays while its link does), and temporary files an ended start left. Runs only when something new was stored, once
    /// per process, so a warm start never lists the folder.
    private func sweep(now: Int) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let weekAgo = now - 7 * 24 * 3600
        let hourAgo = now - 3600
        var linked = Set<String>()
        var old: [String] = []
        for name in names {
            var info = stat()
            guard lstat(path(name), &info) == 0 else { continue }
            let age = Int(info.st_mtim.tv_sec)
            if name.hasPrefix("tmp-") {
                if age < hourAgo { unlink(path(name)) }
            } else if info.st_mode & S_IFMT == S_IFLNK {
                if age < weekAgo {
                    unlink(path(name))
                } else if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path(name)) {
                    linked.insert(target)
                }
            } else if age < weekAgo {
                old.append(name)
            }
        }
        for name in old where !linked.contains(name) { unlink(path(name)) }
    }

    private func path(_ name: String) -> String { folder + "/" + name }
}

/// What changes whenever a file's bytes can have changed: its device, inode, size, modification and change times.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: timespec
    var changed: timespec

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = info.st_mtim
        changed = info.st_ctim
    }

    /// The name of the store's link for this identity.
    var linkName: String {
        "id-\(device)-\(inode)-\(size)-\(modified.tv_sec).\(modified.tv_nsec)-\(changed.tv_sec).\(changed.tv_nsec)"
    }

    /// Whether the file changed `before` at least a second before `now` (both ctimes of one kernel clock).
    func changedAtLeastASecond(before now: timespec) -> Bool {
        changed.tv_sec + 1 < now.tv_sec || (changed.tv_sec + 1 == now.tv_sec && changed.tv_nsec <= now.tv_nsec)
    }

    static func == (left: FileIdentity, right: FileIdentity) -> Bool { left.linkName == right.linkName }
}
