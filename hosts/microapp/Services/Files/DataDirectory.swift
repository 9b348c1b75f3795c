import Foundation
import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

/// The folder the app keeps its database and session in: `--data DIR`, else `$XDG_DATA_HOME/microapp`, else
/// `~/.local/share/microapp`. Missing folders are created with mode 0700; the folder must be writable.
public struct DataDirectory: Sendable, Equatable {
    /// The folder, absolute.
    public let path: String

    /// The database file in it.
    public var databasePath: String { path + "/microapp.sqlite3" }
    /// The session file in it.
    public var sessionPath: String { path + "/session.json" }

    /// Resolves `path` (or the default) in `environment` (a relative path is from its current directory), creates what
    /// is missing (mode 0700) and checks the folder can be written, failing with `notWritable` and the fix otherwise.
    public init(_ path: String? = nil, environment: HostEnvironment) throws(StorageError) {
        guard let chosen = path ?? Self.defaultPath(environment: environment) else {
            throw StorageError(
                kind: .notWritable, file: "$HOME", reason: "there is no home folder to keep the app's data in",
                detail: "neither XDG_DATA_HOME nor HOME is set",
                fix: "choose a data directory with --data DIR, or set XDG_DATA_HOME")
        }
        self.path = URL(fileURLWithPath: environment.absolutePath(chosen)).standardizedFileURL.path
        try Self.create(self.path)
        try Self.checkWritable(self.path)
    }

    /// `$XDG_DATA_HOME/microapp` when that is an absolute path, else `~/.local/share/microapp`
    /// (`HostEnvironment.folder(.data)`).
    public static func defaultPath(environment: HostEnvironment) -> String? {
        environment.folder(.data).map { $0 + "/microapp" }
    }

    /// Creates each missing folder of `path` with mode 0700 (whatever the umask).
    private static func create(_ path: String) throws(StorageError) {
        var current = ""
        for component in path.split(separator: "/") {
            current += "/" + component
            if FileAccess.isDirectory(current) { continue }
            if FileAccess.exists(current) {
                throw StorageError.system(
                    .notWritable, file: current, reason: "the data directory cannot be created: this is a file",
                    errno: ENOTDIR, fix: "choose another data directory with --data DIR")
            }
            if mkdir(current, 0o700) == 0 {
                chmod(current, 0o700)  // the umask may have taken bits away
            } else if errno != EEXIST {
                throw StorageError.system(
                    .notWritable, file: current, reason: "the data directory cannot be created",
                    fix: "create it (mkdir -p -m 700 \(path)) or choose another data directory with --data DIR")
            }
        }
    }

    /// Fails unless a file can be created in `path` (and its mode allows writing, even for root).
    private static func checkWritable(_ path: String) throws(StorageError) {
        let fix = "make it writable (chmod 700 \(path)) or choose another data directory with --data DIR"
        guard FileAccess.isWritable(path), access(path, X_OK) == 0 else {
            let mode = FileAccess.mode(path).map { String($0, radix: 8) } ?? "?"
            throw StorageError(
                kind: .notWritable, file: path, reason: "the data directory is not writable",
                detail: "mode 0\(mode), \(String(cString: strerror(EACCES)))", fix: fix)
        }
        let probe = "\(path)/.write-check.\(getpid())"
        let file = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard file >= 0 else {
            throw StorageError.system(.notWritable, file: path, reason: "the data directory is not writable", fix: fix)
        }
        close(file)
        unlink(probe)
    }
}
