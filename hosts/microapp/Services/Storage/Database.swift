import CSQLite
import MicroappPlatform
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A SQLite database file: opened in WAL mode with foreign keys on and a busy timeout, used through prepared
/// statements with bound parameters only. Safe to share: one connection, one caller at a time. Async callers go
/// through `perform`, which runs the blocking calls on the database's own thread, never on the cooperative pool.
public final class Database: Sendable {
    /// How to open the file.
    public struct Options: Sendable {
        /// How long a statement waits for another connection's lock before failing with `busy`.
        public var busyTimeoutMilliseconds: Int32
        /// Open for reading only, even if the file could be written.
        public var readOnly: Bool
        /// Create the file when it does not exist.
        public var create: Bool
        /// The permission bits of a file created here (SQLite's journal files take the same).
        public var fileMode: mode_t

        /// Options; by default wait 5 s for locks, read-write, create the file with mode 0600.
        public init(
            busyTimeoutMilliseconds: Int32 = 5000, readOnly: Bool = false, create: Bool = true, fileMode: mode_t = 0o600
        ) {
            self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            self.readOnly = readOnly
            self.create = create
            self.fileMode = fileMode
        }
    }

    /// The database file.
    public let path: String
    /// True when the file can only be read (its mode, its folder or the options say so); writes then fail
    /// with a `readOnly` error.
    public let isReadOnly: Bool
    private let connection: Mutex<Connection>
    /// The thread this database's blocking work runs on, one piece at a time.
    private let work = BlockingQueue()

    /// Opens (or creates) the database at `path`. A file that is not a database fails here with `corrupt`,
    /// before anything is written to it.
    public init(path: String, options: Options = Options()) throws(StorageError) {
        self.path = path
        if options.create && !options.readOnly && !FileAccess.exists(path) {
            // An empty file is an empty database; creating it here gives it our mode instead of SQLite's 0644.
            let file = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, options.fileMode)
            if file >= 0 {
                fchmod(file, options.fileMode)
                close(file)
            }
        }
        let protected = FileAccess.exists(path) && !FileAccess.isWritable(path)
        let readOnly = options.readOnly || protected
        var flags = SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_FULLMUTEX
        flags |= readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (options.create ? SQLITE_OPEN_CREATE : 0)
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(handle)
            throw StorageError.sqlite(code, message: message, file: path)
        }
        let connection = Connection(handle: handle, path: path)
        connection.setBusyTimeout(milliseconds: options.busyTimeoutMilliseconds)
        // Reading the schema tells a database from garbage without writing a byte.
        _ = try connection.query("SELECT count(*) FROM sqlite_master")
        isReadOnly = readOnly || connection.isReadOnly
        if !isReadOnly {
            _ = try connection.query("PRAGMA journal_mode = WAL")
            try connection.execute("PRAGMA synchronous = FULL")
        }
        try connection.execute("PRAGMA foreign_keys = ON")
        self.connection = Mutex(connection)
    }

    /// Runs `body` (statements on this database and the work that goes with them, such as hashing a password) on
    /// the database's own thread after the work queued before it, and answers what it returned or threw.
    public func perform<T: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> T
    ) async throws(Failure) -> T {
        try await work.run(body)
    }

    /// Runs every statement of `sql` with `parameters` bound in order; answers the rows changed.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [SQLValue] = []) throws(StorageError) -> Int {
        try connection.withLock { (connection) throws(StorageError) -> Int in
            try connection.execute(sql, parameters)
        }
    }

    /// Runs one query with `parameters` bound in order and answers its rows.
    public func query(_ sql: String, _ parameters: [SQLValue] = []) throws(StorageError) -> [Row] {
        try connection.withLock { (connection) throws(StorageError) -> [Row] in
            try connection.query(sql, parameters)
        }
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`): all of it is committed, or none of it when
    /// `body` throws.
    public func transaction<Result: Sendable>(
        _ body: (Connection) throws(StorageError) -> Result
    ) throws(StorageError) -> Result {
        try connection.withLock { (connection) throws(StorageError) -> Result in
            try connection.execute("BEGIN IMMEDIATE")
            do throws(StorageError) {
                let result = try body(connection)
                try connection.execute("COMMIT")
                return result
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// The schema version kept in the file (`PRAGMA user_version`).
    public func userVersion() throws(StorageError) -> Int {
        Int(try query("PRAGMA user_version").first?.integer(0) ?? 0)
    }

    /// Fails with `readOnly` or `busy` (after the busy timeout) unless a write could start now.
    public func checkWritable() throws(StorageError) {
        if isReadOnly {
            throw StorageError.sqlite(SQLITE_READONLY, message: "attempt to write a readonly database", file: path)
        }
        try transaction { (_) throws(StorageError) in }
    }
}
