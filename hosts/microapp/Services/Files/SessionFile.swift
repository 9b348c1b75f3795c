import Foundation
import MicroappSDK

#if canImport(Glibc)
    import Glibc
#endif

/// The signed-in session kept between runs: JSON, mode 0600, replaced atomically, removed on sign-out.
public struct SessionFile: Sendable {
    /// What `load` found.
    public enum Loaded: Sendable, Equatable {
        /// No session file: signed out.
        case signedOut
        /// A valid session.
        case signedIn(Session)
        /// A file that cannot be read or is not a session: treat as signed out, and tell someone.
        case unreadable(StorageError)
    }

    /// The largest session file read; anything bigger is not one of ours.
    static let maximumBytes = 64 * 1024

    /// The file.
    public let path: String

    /// The session file at `path` (usually `DataDirectory.sessionPath`).
    public init(path: String) { self.path = path }

    /// Reads the session; never throws, never traps: a damaged file answers `.unreadable`.
    public func load() -> Loaded {
        AtomicFile.removeLeftovers(of: path)
        let file = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard file >= 0 else {
            if errno == ENOENT { return .signedOut }
            return .unreadable(
                StorageError.system(
                    .cannotOpen, file: path, reason: "the saved session cannot be read; starting signed out",
                    fix: "make it readable (chmod 600 \(path)) or remove it, then sign in again"))
        }
        let handle = FileHandle(fileDescriptor: file, closeOnDealloc: true)
        let data: Data
        do {
            data = try handle.read(upToCount: Self.maximumBytes + 1) ?? Data()
        } catch {
            return .unreadable(damaged("it cannot be read: \(error.localizedDescription)"))
        }
        guard data.count <= Self.maximumBytes else { return .unreadable(damaged("it is larger than 64 KB")) }
        do {
            return .signedIn(try JSONDecoder().decode(Session.self, from: data))
        } catch {
            return .unreadable(damaged("it is not a session as JSON (\(data.count) bytes)"))
        }
    }

    /// Saves `session` atomically with mode 0600, or removes the file for nil.
    public func save(_ session: Session?) throws(StorageError) {
        guard let session else { return try AtomicFile.remove(path) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(session) else {
            throw StorageError(
                kind: .failed, file: path, reason: "the session cannot be encoded", detail: "JSONEncoder failed",
                fix: "this is a bug in microapp: report it")
        }
        try AtomicFile.write(data, to: path, mode: 0o600)
    }

    private func damaged(_ detail: String) -> StorageError {
        StorageError(
            kind: .corrupt, file: path, reason: "the saved session is damaged; starting signed out", detail: detail,
            fix: "sign in again (the file is replaced then), or remove it")
    }
}
