import Foundation
import MicroappCore
import MicroappDigest
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A plugin library opened once and copied into a private folder: the checks (a regular file, owned as `FileTrust`
/// requires), the SHA-256 and the copy all come from one descriptor, read once. The copy is the only file that is
/// then probed, mapped or handed to a feature's child, so a file renamed over the library after the check never runs.
///
/// A library that is a symbolic link is resolved once: its target (and the folders of link and target) is checked,
/// hashed and copied; replacing the target afterwards changes nothing that runs.
public struct LibraryCopy: Sendable, Equatable {
    /// The library as it was found: what messages, locks and trust name.
    public let original: String
    /// The private copy, readable by this user only; never written again.
    public let path: String
    /// Hex SHA-256 of the bytes copied.
    public let sha256: String
    /// Whether the copy is in a `LibraryStore`, shared with other starts: it is never moved or removed by one.
    public var isStored = false

    /// A copy of `original` at `path` whose bytes hash to `sha256`.
    public init(original: String, path: String, sha256: String, isStored: Bool = false) {
        self.original = original
        self.path = path
        self.sha256 = sha256
        self.isStored = isStored
    }

    /// Opens `original` once (`O_NOFOLLOW`; a symbolic link resolved once), checks it, and copies it while hashing
    /// into `folder` (a folder only this user can write), as `name` (the library's file name by default).
    public static func make(_ original: String, in folder: String, name: String? = nil) -> Result<
        LibraryCopy, Problem
    > {
        let source: Int32
        switch open(original) {
        case .success(let opened): source = opened.descriptor
        case .failure(let problem): return .failure(problem)
        }
        defer { _ = close(source) }
        let copy = (folder as NSString).appendingPathComponent(name ?? (original as NSString).lastPathComponent)
        let target = Glibc.open(copy, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard target >= 0 else { return .failure(notCopied(original, copy, errno)) }
        switch copyHashing(source, into: target) {
        case .success(let digest): return .success(LibraryCopy(original: original, path: copy, sha256: digest))
        case .failure(let error):
            unlink(copy)
            return .failure(notCopied(original, copy, error.errno))
        }
    }

    /// `make` through `store`: a library whose file identity is the one it had when the store copied it loads that
    /// copy, and nothing is read or hashed (see `LibraryStore` for why that is sound); any other is copied into the
    /// store while hashed, and its identity remembered when it has not changed for a second. Without a store, or
    /// when the store fails, the copy goes to this process's own folder (`make(_:)`).
    public static func make(_ original: String, store: LibraryStore?) -> Result<LibraryCopy, Problem> {
        guard let store else { return make(original) }
        let source: Int32
        let identity: FileIdentity
        switch open(original) {
        case .success(let opened): (source, identity) = (opened.descriptor, FileIdentity(opened.info))
        case .failure(let problem): return .failure(problem)
        }
        defer { _ = close(source) }
        if let known = store.copy(of: identity) {
            return .success(LibraryCopy(original: original, path: known.path, sha256: known.sha256, isStored: true))
        }
        let name = PathParts.name(of: original)
        guard let temporary = store.temporaryFile(for: name) else { return make(original) }
        guard case .success(let digest) = copyHashing(source, into: temporary.descriptor, closing: false) else {
            _ = close(temporary.descriptor)
            unlink(temporary.path)
            return make(original)
        }
        var copied = stat()
        var after = stat()
        let stamped = fstat(temporary.descriptor, &copied) == 0 && fstat(source, &after) == 0
        _ = close(temporary.descriptor)
        guard let kept = store.keep(temporary.path, sha256: digest, name: name) else { return make(original) }
        // Remembered only when no write can hide behind the identity: unchanged while copied, and a second old.
        if stamped, FileIdentity(after) == identity, identity.changedAtLeastASecond(before: copied.st_ctim) {
            store.remember(identity, sha256: digest, name: name, now: copied.st_ctim)
        }
        return .success(LibraryCopy(original: original, path: kept, sha256: digest, isStored: true))
    }

    /// Copies what is left of `source` into `target` while hashing it, makes the copy read-and-run by its owner only
    /// and (unless `closing` is false) closes it; answers the hex SHA-256 of the bytes copied, or the errno.
    private static func copyHashing(
        _ source: Int32, into target: Int32, closing: Bool = true
    ) -> Result<String, SystemCallError> {
        var hash = SHA256()
        var chunk = [UInt8](repeating: 0, count: 1 << 18)
        var failure: Int32 = 0
        while failure == 0 {
            let count = chunk.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                if count < 0 { failure = errno }
                break
            }
            chunk.withUnsafeBufferPointer { hash.update(UnsafeBufferPointer(rebasing: $0[..<count])) }
            failure = chunk.withUnsafeBytes { Files.writeAll(target, UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        // Read and run by its owner only, written no more.
        if failure == 0 && fchmod(target, 0o500) != 0 { failure = errno }
        if closing && close(target) != 0 && failure == 0 { failure = errno }
        return failure == 0 ? .success(hash.hexDigest()) : .failure(SystemCallError(call: "copy", errno: failure))
    }

    /// `make` into this process's private folder of libraries loaded here, under a name no other copy had
    /// (`<n>-libAuth.so`): a loaded copy is never replaced, and is removed only when the process ends.
    public static func make(_ original: String) -> Result<LibraryCopy, Problem> {
        switch loadedFolder {
        case .success(let folder):
            let number = copies.add(1, ordering: .relaxed).newValue
            return make(original, in: folder, name: "\(number)-" + (original as NSString).lastPathComponent)
        case .failure(let error):
            return .failure(
                Problem(
                    .loadFailed, subject: original,
                    reason: "no private folder could be made for its copy (\(error.problem.reason))",
                    fix: "make the temporary folder (\(HostScratch.folder)) writable"))
        }
    }

    /// `problem` about this library: the copy's path, wherever a message names it, becomes the original's.
    public func naming(_ problem: Problem) -> Problem {
        var named = problem
        if named.subject == path { named.subject = original }
        named.reason = named.reason.replacingOccurrences(of: path, with: original)
        named.fix = named.fix.replacingOccurrences(of: path, with: original)
        return named
    }

    /// The name prefix of the folders `make(_:)` copies into (`LeftoverFolders` removes those of ended processes).
    public static let loadedFolderPrefix = "microapp-loaded-"

    private static let copies = Atomic<Int>(0)
    /// Where `make(_:)` makes its folder: `HostScratch`'s, unless `keepCopies(in:)` named another.
    private static let parent = Mutex<String?>(nil)

    /// Makes this process's folder of loaded copies inside `folder` (a private folder someone else removes when this
    /// process ends, however it ends: the supervised app's, in its supervisor's folder). Call it before the first copy.
    public static func keepCopies(in folder: String) { parent.withLock { $0 = folder } }

    /// This process's folder of copies loaded here, made on first use (0700, the pid in its name), removed when the
    /// process exits (mapped copies stay mapped); one left by a killed process goes with the next host's sweep of
    /// `LeftoverFolders`, started here too.
    private static let loadedFolder: Result<String, SystemCallError> = {
        let base = parent.withLock { $0 } ?? HostScratch.folder
        var template = Array((base + "/\(loadedFolderPrefix)\(getpid())-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return .failure(SystemCallError(call: "mkdtemp", errno: errno)) }
        atexit { LibraryCopy.removeLoadedFolder() }
        _ = LeftoverFolders.sweptOnce
        return .success(String(cString: made))
    }()

    /// Removes this process's folder of loaded copies (at exit; a fork's exit leaves its parent's alone).
    private static func removeLoadedFolder() {
        guard case .success(let folder) = loadedFolder, folder.contains("\(loadedFolderPrefix)\(getpid())-") else {
            return
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The library opened for reading and checked: a regular file (a symbolic link resolved once, the target
    /// opened without following another), that `FileTrust` believes, in a folder it believes.
    private static func open(_ original: String) -> Result<(descriptor: Int32, info: stat), Problem> {
        var file = original
        var descriptor = Glibc.open(original, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        var folders = [folder(of: original)]
        if descriptor < 0 && errno == ELOOP {
            // A symbolic link: resolved here, once; the bytes checked and copied are the target's as opened now.
            guard let resolved = realpath(original, nil) else { return .failure(unreadable(original, errno)) }
            file = String(cString: resolved)
            free(resolved)
            folders.append(folder(of: file))
            descriptor = Glibc.open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        }
        guard descriptor >= 0 else { return .failure(unreadable(original, errno)) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            defer { _ = close(descriptor) }
            return .failure(unreadable(original, errno))
        }
        let linked = file == original ? "" : " (the target of the symbolic link \(original))"
        guard info.st_mode & S_IFMT == S_IFREG else {
            _ = close(descriptor)
            return .failure(
                Problem(
                    .notSharedObject, subject: original, reason: "it is not a regular file\(linked)",
                    fix: "point Microapps at lib<Feature>.so files or the folder that holds them"))
        }
        var weakness = FileTrust.weakness(file, info, what: "file")
        for folder in folders where weakness == nil {
            var folderInfo = stat()
            if stat(folder, &folderInfo) == 0 { weakness = FileTrust.weakness(folder, folderInfo, what: "folder") }
        }
        if let weakness {
            _ = close(descriptor)
            return .failure(
                Problem(
                    .unsafePermissions, subject: original, reason: weakness.reason + linked,
                    fix: weakness.modeFix ?? "copy the plugin into a folder you own, or `chown` it to yourself"))
        }
        return .success((descriptor, info))
    }

    private static func folder(of path: String) -> String {
        let folder = PathParts.folder(of: path)
        return folder.isEmpty ? "." : folder
    }

    private static func unreadable(_ path: String, _ number: Int32) -> Problem {
        if number == ENOENT {
            return Problem(
                .notFound, subject: path, reason: "no such file",
                fix: "check the path, or build the plugins with `swift build`")
        }
        return Problem(
            .loadFailed, subject: path, reason: "it cannot be read (\(String(cString: strerror(number))))",
            fix: "give the current user read permission on it")
    }

    private static func notCopied(_ path: String, _ copy: String, _ number: Int32) -> Problem {
        Problem(
            .loadFailed, subject: path,
            reason: "it could not be copied to \(copy) (\(String(cString: strerror(number))))",
            fix: "make the temporary folder writable, or free some disk space")
    }
}
