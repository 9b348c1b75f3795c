import CSQLite
import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

/// Why the app's files (data directory, database, session file) cannot be used: the file, what went wrong in
/// words for people, the system's or SQLite's own message, and what to do about it.
public struct StorageError: ProblemDescribing, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of failure callers may tell apart.
    public enum Kind: String, Sendable {
        /// The file is not a SQLite database or is damaged.
        case corrupt
        /// The file (or its folder) cannot be written.
        case readOnly
        /// Another connection holds a lock longer than the busy timeout.
        case busy
        /// The file cannot be opened or created.
        case cannotOpen
        /// The data directory cannot be created or written.
        case notWritable
        /// The disk is full.
        case diskFull
        /// A read or write failed in the operating system.
        case io
        /// A constraint (unique email, foreign key) refused the change.
        case constraint
        /// The database was written by a newer version of the app.
        case schemaTooNew
        /// Anything else.
        case failed
    }

    /// Which kind of failure.
    public var kind: Kind
    /// The file or folder concerned.
    public var file: String
    /// What went wrong, for people.
    public var reason: String
    /// The message of SQLite or of the system, as it gave it.
    public var detail: String
    /// What to do about it.
    public var fix: String

    /// Creates an error.
    public init(kind: Kind, file: String, reason: String, detail: String, fix: String) {
        self.kind = kind
        self.file = file
        self.reason = reason
        self.detail = detail
        self.fix = fix
    }

    /// `microapp: FILE: reason (detail)` and `  to fix: fix` on a second line, like the CLI's other problems.
    public var description: String { "microapp: \(problem.text)" }

    /// A `storage-<kind>` problem about the file, the system's or SQLite's message after the reason.
    public var problem: Problem {
        Problem(code: "storage-\(kind.rawValue)", subject: file, reason: "\(reason) (\(detail))", fix: fix)
    }

    /// The error for a failed SQLite call on the database at `file`.
    static func sqlite(_ code: Int32, message: String, file: String) -> StorageError {
        switch code & 0xFF {
        case SQLITE_NOTADB, SQLITE_CORRUPT:
            StorageError(
                kind: .corrupt, file: file, reason: "the database is damaged or is not a SQLite database",
                detail: message,
                fix: "nothing was changed in it: move it aside (mv \(file) \(file).broken) to start with a new one, "
                    + "or restore it from a backup")
        case SQLITE_READONLY:
            StorageError(
                kind: .readOnly, file: file, reason: "the database is read-only", detail: message,
                fix:
                    "make it and its folder writable (chmod u+w \(file)) or choose another data directory with --data DIR"
            )
        case SQLITE_BUSY, SQLITE_LOCKED:
            StorageError(
                kind: .busy, file: file, reason: "the database is locked by another program", detail: message,
                fix: "close the other microapp (or program) using it and try again")
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH:
            StorageError(
                kind: .cannotOpen, file: file, reason: "the database cannot be opened", detail: message,
                fix: "check that its folder exists and is writable, or choose another data directory with --data DIR")
        case SQLITE_FULL:
            StorageError(
                kind: .diskFull, file: file, reason: "the disk is full", detail: message,
                fix: "free some disk space and try again")
        case SQLITE_IOERR:
            StorageError(
                kind: .io, file: file, reason: "reading or writing the database failed", detail: message,
                fix: "check the disk and the file's permissions, then try again")
        case SQLITE_CONSTRAINT:
            StorageError(
                kind: .constraint, file: file, reason: "the change breaks a rule of the database", detail: message,
                fix: "this is a bug in microapp: report it with this message")
        default:
            StorageError(
                kind: .failed, file: file, reason: "a database operation failed", detail: message,
                fix: "this is a bug in microapp or a damaged file: report it with this message")
        }
    }

    /// The error for a failed system call on `file`, with `errno`'s message.
    static func system(
        _ kind: Kind, file: String, reason: String, errno code: Int32 = errno, fix: String
    ) -> StorageError {
        StorageError(kind: kind, file: file, reason: reason, detail: String(cString: strerror(code)), fix: fix)
    }
}
