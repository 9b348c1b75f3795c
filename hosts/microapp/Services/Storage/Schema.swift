/// One step of the schema: the statements that take the database from `version - 1` to `version`.
public struct Migration: Sendable {
    /// The schema version after this step.
    public let version: Int
    /// What the step does, for logs and tests.
    public let summary: String
    /// The statements, run in one transaction with the version bump.
    public let sql: String
}

/// The demo app's schema, versioned in `PRAGMA user_version` and moved forward one migration (one transaction)
/// at a time; a database from a newer app is refused rather than guessed at.
public enum Schema {
    /// Every migration, oldest first.
    public static let migrations: [Migration] = [
        Migration(
            version: 1, summary: "accounts",
            sql: """
                CREATE TABLE accounts (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL,
                    email TEXT NOT NULL UNIQUE COLLATE NOCASE,
                    password_hash TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                );
                """),
        Migration(
            version: 2, summary: "recent searches per account",
            sql: """
                CREATE TABLE recent_searches (
                    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    text TEXT NOT NULL COLLATE NOCASE,
                    used_at INTEGER NOT NULL,
                    PRIMARY KEY (account_id, text)
                );
                CREATE INDEX recent_searches_by_time ON recent_searches (account_id, used_at DESC);
                """),
        Migration(
            version: 3, summary: "one-time seeds already applied",
            sql: """
                CREATE TABLE seeds (
                    name TEXT PRIMARY KEY,
                    applied_at INTEGER NOT NULL
                );
                """),
    ]

    /// The version this app writes.
    public static var currentVersion: Int { migrations.last?.version ?? 0 }

    /// Brings `database` to `target` (the current version by default); answers the version it found.
    @discardableResult
    public static func migrate(_ database: Database, to target: Int = currentVersion) throws(StorageError) -> Int {
        let found = try database.userVersion()
        guard found <= currentVersion else {
            throw StorageError(
                kind: .schemaTooNew, file: database.path, reason: "the database was written by a newer microapp",
                detail: "schema version \(found), this microapp knows up to \(currentVersion)",
                fix: "run the newer microapp, or choose another data directory with --data DIR")
        }
        for migration in migrations where migration.version > found && migration.version <= target {
            try database.transaction { (connection) throws(StorageError) in
                // Another process may have migrated since we looked: check again inside the write lock.
                let now = Int(try connection.query("PRAGMA user_version").first?.integer(0) ?? 0)
                guard now < migration.version else { return }
                try connection.execute(migration.sql)
                // PRAGMA takes no bound parameters; the version is an Int from the list above, never input.
                try connection.execute("PRAGMA user_version = \(migration.version)")
            }
        }
        return found
    }
}
