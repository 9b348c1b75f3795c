import DemoServices
import Foundation
import TestScratch
import Testing

@Suite("Database: SQLite through CSQLite, migrations")
struct DatabaseTests {
    @Test("an empty file is migrated to the current schema in WAL mode with foreign keys on", .offThePool)
    func migratesFromEmpty() throws {
        let directory = TemporaryDirectory()
        let database = try Database(path: directory.file("new.sqlite3"))
        #expect(try database.userVersion() == 0)
        #expect(try Schema.migrate(database) == 0)
        #expect(try database.userVersion() == Schema.currentVersion)
        #expect(Schema.currentVersion == 3)
        let tables = try database.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .compactMap { $0.text(0) }
        #expect(tables.contains("accounts") && tables.contains("recent_searches") && tables.contains("seeds"))
        #expect(try database.query("PRAGMA journal_mode").first?.text(0) == "wal")
        #expect(try database.query("PRAGMA foreign_keys").first?.integer(0) == 1)
        #expect(mode(directory.file("new.sqlite3")) == 0o600)
        // Migrating again finds the current version and changes nothing.
        #expect(try Schema.migrate(database) == Schema.currentVersion)
    }

    @Test("re-opening keeps the data; an old schema moves forward keeping its rows", .offThePool)
    func reopenKeepsData() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("data.sqlite3")
        do {
            let database = try Database(path: path)
            try Schema.migrate(database, to: 1)
            #expect(try database.userVersion() == 1)
            try database.execute(
                "INSERT INTO accounts (name, email, password_hash, created_at) VALUES (?, ?, ?, ?)",
                ["Morty", "morty@example.com", "$y$hash", 1])
        }
        let reopened = try Database(path: path)
        #expect(try Schema.migrate(reopened) == 1)
        #expect(try reopened.userVersion() == Schema.currentVersion)
        let rows = try reopened.query("SELECT name, email FROM accounts")
        #expect(rows == [Row(["Morty", "morty@example.com"])])
        try reopened.execute("INSERT INTO recent_searches (account_id, text, used_at) VALUES (1, 'rick', 1)")
        #expect(try Database(path: path).query("SELECT count(*) FROM recent_searches").first?.integer(0) == 1)
    }

    @Test("a database from a newer app is refused, not guessed at")
    func newerSchemaRefused() async throws {
        let directory = TemporaryDirectory()
        let database = try Database(path: directory.file("future.sqlite3"))
        try database.execute("PRAGMA user_version = 99")
        let error = await storageError { try Schema.migrate(database) }
        #expect(error?.kind == .schemaTooNew)
        #expect(error?.detail == "schema version 99, this microapp knows up to 3")
    }

    @Test("values are bound, never spliced into SQL")
    func boundParameters() async throws {
        let store = try TestStore()
        let hostile = "x'); DROP TABLE accounts; --"
        try store.database.execute(
            "INSERT INTO accounts (name, email, password_hash, created_at) VALUES (?, ?, ?, ?)",
            [.text(hostile), "a@b.c", "h", 1])
        #expect(try store.database.query("SELECT name FROM accounts").first?.text(0) == hostile)
        let error = await storageError { try store.database.execute("SELECT ?", []) }
        #expect(error?.kind == .failed)
    }

    @Test("a failing transaction leaves nothing behind")
    func transactionRollsBack() async throws {
        let store = try TestStore()
        let error = await storageError {
            try store.database.transaction { (connection) throws(StorageError) in
                try connection.execute(
                    "INSERT INTO accounts (name, email, password_hash, created_at) VALUES ('A', 'a@b.c', 'h', 1)")
                try connection.execute(
                    "INSERT INTO accounts (name, email, password_hash, created_at) VALUES ('B', 'A@B.C', 'h', 1)")
            }
        }
        #expect(error?.kind == .constraint)
        #expect(try store.database.query("SELECT count(*) FROM accounts").first?.integer(0) == 0)
    }
}
