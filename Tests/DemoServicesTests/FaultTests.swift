import DemoServices
import Foundation
import MicroappSDK
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The data directory and database failing in the ways people meet: each a clear error, nothing lost.
@Suite("Faults: corrupt, read-only, locked database; data directory not writable")
struct FaultTests {
    @Test("a file of garbage is refused as corrupt and left byte for byte as it was")
    func corruptDatabase() async throws {
        let directory = TemporaryDirectory()
        let data = try DataDirectory(directory.path, environment: .process)
        var garbage = Data(String(repeating: "this is not a SQLite database\n", count: 200).utf8)
        garbage.append(contentsOf: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761) })
        try garbage.write(to: URL(fileURLWithPath: data.databasePath))

        let error = await storageError { _ = try Database(path: data.databasePath) }
        #expect(error?.kind == .corrupt)
        #expect(error?.detail == "file is not a database")
        #expect(error?.description.hasPrefix("microapp: \(data.databasePath): the database is damaged") == true)
        #expect(error?.fix.contains("mv \(data.databasePath) \(data.databasePath).broken") == true)
        let fromBackend = await storageError {
            _ = try await DemoBackend.open(
                .init(dataDirectory: directory.path, environment: .process), report: { _ in })
        }
        #expect(fromBackend == error)
        #expect(contents(data.databasePath) == garbage)
    }

    @Test("a read-only database opens for reading; writing fails clearly and changes nothing")
    func readOnlyDatabase() async throws {
        let directory = TemporaryDirectory()
        let path = try DataDirectory(directory.path, environment: .process).databasePath
        do {
            let store = AccountStore(database: try Database(path: path), date: { Date() })
            try Schema.migrate(store.database)
            _ = try store.signUp(NewAccount(name: "Rick", email: "rick@example.com", password: "portal-gun"))
        }
        chmod(path, 0o444)
        let before = try #require(contents(path))

        let database = try Database(path: path)
        #expect(database.isReadOnly)
        #expect(try database.query("SELECT email FROM accounts").first?.text(0) == "rick@example.com")
        let error = await storageError {
            try database.execute(
                "INSERT INTO accounts (name, email, password_hash, created_at) VALUES ('M', 'm@e.co', 'h', 1)")
        }
        #expect(error?.kind == .readOnly)
        #expect(error?.detail == "attempt to write a readonly database")
        #expect(error?.fix.contains("chmod u+w \(path)") == true)
        let signUp = #expect(throws: ServiceError.self) {
            try AccountStore(database: database, date: { Date() }).signUp(
                NewAccount(name: "Morty", email: "morty@example.com", password: "aw-jeez-rick"))
        }
        #expect(signUp?.code == "storage-failed")
        #expect(signUp?.message.contains("the database is read-only") == true)
        let fromBackend = await storageError {
            _ = try await DemoBackend.open(
                .init(dataDirectory: directory.path, environment: .process), report: { _ in })
        }
        #expect(fromBackend?.kind == .readOnly)
        #expect(contents(path) == before)
    }

    @Test("a database locked by another connection fails with busy after the timeout, without damage")
    func lockedDatabase() async throws {
        let store = try TestStore(busyTimeoutMilliseconds: 300)
        _ = try store.accounts.signUp(NewAccount(name: "Rick", email: "rick@example.com", password: "portal-gun"))
        let holder = try Database(path: store.database.path)
        try holder.execute("BEGIN EXCLUSIVE")
        try holder.execute(
            "INSERT INTO accounts (name, email, password_hash, created_at) VALUES ('Holder', 'h@e.co', 'h', 1)")

        let start = ContinuousClock.now
        let error = await storageError {
            try store.database.execute(
                "INSERT INTO accounts (name, email, password_hash, created_at) VALUES ('M', 'm@e.co', 'h', 1)")
        }
        #expect(ContinuousClock.now - start >= .milliseconds(300))
        #expect(error?.kind == .busy)
        #expect(error?.detail == "database is locked")
        #expect(error?.reason == "the database is locked by another program")
        let signUp = #expect(throws: ServiceError.self) {
            try store.accounts.signUp(NewAccount(name: "Morty", email: "morty@example.com", password: "aw-jeez-rick"))
        }
        #expect(signUp?.code == "unavailable")
        // Reading still works while the other connection writes (WAL).
        #expect(try store.database.query("SELECT count(*) FROM accounts").first?.integer(0) == 1)
        let backend = await storageError {
            _ = try await DemoBackend.open(
                .init(dataDirectory: store.directory.path, busyTimeoutMilliseconds: 200, environment: .process),
                report: { _ in })
        }
        #expect(backend?.kind == .busy)

        try holder.execute("ROLLBACK")
        #expect(try store.database.query("PRAGMA integrity_check").first?.text(0) == "ok")
        #expect(
            try store.database.query("SELECT email FROM accounts").compactMap { $0.text(0) } == ["rick@example.com"])
        _ = try store.accounts.signUp(NewAccount(name: "Morty", email: "morty@example.com", password: "aw-jeez-rick"))
    }

    @Test(
        "a database locked by another process (the sqlite3 shell) stops the app's start with busy")
    func lockedByAnotherProcess() async throws {
        // A machine without the shell fails here, not skips: .ci/run installs it.
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"),
            "no /usr/bin/sqlite3, the other process this test needs; to fix: apt-get install sqlite3")
        let directory = TemporaryDirectory()
        let path: String
        do {
            let backend = try await DemoBackend.open(
                .init(dataDirectory: directory.path, environment: .process), report: { _ in })
            path = await MainActor.run { backend.database.path }
        }
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = [path]
        let input = Pipe()
        // Foundation's pipes are inheritable: a child another test starts meanwhile would keep the write end open,
        // and the shell would never see the end of its input.
        for end in [input.fileHandleForReading, input.fileHandleForWriting] {
            _ = fcntl(end.fileDescriptor, F_SETFD, FD_CLOEXEC)
        }
        shell.standardInput = input
        shell.standardOutput = FileHandle.nullDevice
        try shell.run()
        defer { if shell.isRunning { shell.terminate() } }
        input.fileHandleForWriting.write(Data("BEGIN EXCLUSIVE;\nCREATE TABLE held (x);\n".utf8))
        let probe = try Database(path: path, options: .init(busyTimeoutMilliseconds: 0))
        let deadline = ContinuousClock.now + .seconds(5)
        while (try? probe.checkWritable()) != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let error = await storageError {
            _ = try await DemoBackend.open(
                .init(dataDirectory: directory.path, busyTimeoutMilliseconds: 200, environment: .process),
                report: { _ in })
        }
        #expect(error?.kind == .busy)
        #expect(error?.description.contains("close the other microapp (or program) using it") == true)
        try input.fileHandleForWriting.close()  // the shell ends and its transaction rolls back
        shell.waitUntilExit()
        let reopened = try Database(path: path)
        #expect(try reopened.query("PRAGMA integrity_check").first?.text(0) == "ok")
        #expect(try reopened.query("SELECT count(*) FROM sqlite_master WHERE name = 'held'").first?.integer(0) == 0)
    }

    @Test("a data directory that cannot be written is refused with the fix")
    func dataDirectoryNotWritable() async throws {
        let directory = TemporaryDirectory()
        let locked = directory.file("locked")
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
        chmod(locked, 0o500)
        let error = await storageError { _ = try DataDirectory(locked, environment: .process) }
        #expect(error?.kind == .notWritable)
        #expect(error?.reason == "the data directory is not writable")
        #expect(error?.fix == "make it writable (chmod 700 \(locked)) or choose another data directory with --data DIR")
        let fromBackend = await storageError {
            _ = try await DemoBackend.open(.init(dataDirectory: locked, environment: .process), report: { _ in })
        }
        #expect(fromBackend == error)

        let file = directory.file("file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let blocked = await storageError { _ = try DataDirectory(file + "/microapp", environment: .process) }
        #expect(blocked?.kind == .notWritable)
        #expect(blocked?.file == file)
        #expect(blocked?.reason == "the data directory cannot be created: this is a file")
    }
}
