import Foundation

/// Each account's recent search queries: most recent first, no duplicates (in any case; running a query
/// again moves it to the top), at most `limit`, clearable. Deleting the account deletes them.
public struct RecentSearchStore: Sendable {
    /// How many queries an account keeps.
    public static let limit = 10
    /// The longest query kept, in characters.
    public static let maximumLength = 200
    /// Where the queries live.
    public let database: Database
    /// The wall clock a query's time is read from (the host environment's `date`).
    private let date: @Sendable () -> Date

    /// Uses the `recent_searches` table of `database` (migrated by `Schema`), timing queries by `date`.
    public init(database: Database, date: @escaping @Sendable () -> Date) {
        self.database = database
        self.date = date
    }

    /// The account's queries, most recent first.
    public func recent(accountID: Int64) throws(StorageError) -> [String] {
        try database.query(Self.listSQL, [.integer(accountID), .integer(Int64(Self.limit))]).compactMap { $0.text(0) }
    }

    /// Puts `text` (trimmed) at the top of the account's queries and answers the list; blank text changes
    /// nothing. Fails with `constraint` when the account does not exist.
    public func save(_ text: String, accountID: Int64) throws(StorageError) -> [String] {
        let query = String(text.trimmingCharacters(in: .whitespacesAndNewlines).prefix(Self.maximumLength))
        let now = Int64(date().timeIntervalSince1970 * 1000)
        return try database.transaction { (connection) throws(StorageError) in
            guard !query.isEmpty else { return try Self.list(accountID, connection) }
            // Strictly increasing per account, so two saves in one millisecond keep their order.
            let latest =
                try connection.query(
                    "SELECT max(used_at) FROM recent_searches WHERE account_id = ?", [.integer(accountID)]
                ).first?.integer(0) ?? 0
            try connection.execute(
                """
                INSERT INTO recent_searches (account_id, text, used_at) VALUES (?, ?, ?)
                ON CONFLICT (account_id, text) DO UPDATE SET text = excluded.text, used_at = excluded.used_at
                """, [.integer(accountID), .text(query), .integer(max(now, latest + 1))])
            try connection.execute(
                """
                DELETE FROM recent_searches WHERE rowid IN (
                    SELECT rowid FROM recent_searches WHERE account_id = ?
                    ORDER BY used_at DESC LIMIT -1 OFFSET ?)
                """, [.integer(accountID), .integer(Int64(Self.limit))])
            return try Self.list(accountID, connection)
        }
    }

    /// Forgets the account's queries; answers the empty list.
    public func clear(accountID: Int64) throws(StorageError) -> [String] {
        try database.execute("DELETE FROM recent_searches WHERE account_id = ?", [.integer(accountID)])
        return []
    }

    private static let listSQL = "SELECT text FROM recent_searches WHERE account_id = ? ORDER BY used_at DESC LIMIT ?"

    private static func list(_ accountID: Int64, _ connection: Connection) throws(StorageError) -> [String] {
        try connection.query(listSQL, [.integer(accountID), .integer(Int64(limit))]).compactMap { $0.text(0) }
    }
}
