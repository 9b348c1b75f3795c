import Foundation
import Synchronization
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `kill -9` of the real app in the middle of sign-up, again and again: the database stays whole and the
/// session file is either absent or a complete session.
@Suite("End to end: data survives kill -9", .serialized, .promptResumes)
struct PersistenceTests {
    @Test("kill -9 at varying moments of sign-up never corrupts the database or half-writes the session")
    func killDuringSignUp() async throws {
        let data = try TemporaryFolder()
        let folder = data.path + "/microapp"
        let database = folder + "/microapp.sqlite3"
        let sessionPath = folder + "/session.json"
        for iteration in 0..<20 {
            let app = try KillableApp(data: data.path)
            if iteration < 4 {
                // During start: loading plugins, opening and migrating the database.
                try await Task.sleep(for: .milliseconds(40 * iteration))
            } else {
                try await app.waitForFirstFrame()
                app.send([
                    #"{"type":"input","id":"name","text":"Morty \#(iteration)"}"#,
                    #"{"type":"input","id":"email","text":"morty\#(iteration)@example.com"}"#,
                    #"{"type":"input","id":"password","text":"aw-jeez-rick"}"#,
                    #"{"type":"input","id":"confirm","text":"aw-jeez-rick"}"#,
                    #"{"type":"tap","id":"submit"}"#,
                ])
                // 0 to 60 ms after submit: before, during and after hashing, the insert and the session write.
                try await Task.sleep(for: .milliseconds(4 * (iteration - 4)))
            }
            app.kill()

            if FileManager.default.fileExists(atPath: database) {
                #expect(try SQLiteProbe.integrityCheck(database) == "ok", "iteration \(iteration)")
            }
            if let bytes = FileManager.default.contents(atPath: sessionPath) {
                let session = try? JSONSerialization.jsonObject(with: bytes) as? [String: String]
                #expect(session?["email"]?.hasSuffix("@example.com") == true, "iteration \(iteration): \(bytes)")
                let id = try #require(session?["accountID"].flatMap { Int64($0) })
                #expect(try SQLiteProbe.accountExists(database, id: id), "the session's account is in the database")
            }
        }
        // The app starts on what the kills left, signed in if a session was saved.
        let saved = FileManager.default.contents(atPath: sessionPath).flatMap {
            try? JSONSerialization.jsonObject(with: $0) as? [String: String]
        }
        let app = try KillableApp(data: data.path)
        let frame = try await app.waitForFirstFrame()
        #expect(frame["account"] as? String == saved?["email"])
        app.kill()
    }
}

/// The real `microapp` with `--ui json`, data under `XDG_DATA_HOME` (the default data directory), killable.
private final class KillableApp: Sendable {
    private let process = Process()
    private let input: FileHandle
    private let output = Lines()

    /// Lines read by the reader thread; a class so the thread and the app share them.
    private final class Lines: Sendable {
        let lines = Mutex<[String]>([])
    }

    init(data: String) throws {
        process.executableURL = URL(fileURLWithPath: AppProcess.executable)
        // The app process itself, not its supervisor: the kill must land on the process writing the data.
        process.arguments = ["run", "--ui", "json", "--open", "auth://sign-up", "--no-build", "--no-supervise"]
        process.environment = Scratch.childEnvironment(["XDG_DATA_HOME": data])
        let stdin = privatePipe()
        let stdout = privatePipe()
        input = stdin.fileHandleForWriting
        try process.run(stdin: stdin, stdout: stdout, stderr: FileHandle.nullDevice)
        let reading = stdout.fileHandleForReading
        let collected = output
        Thread.detachNewThread {
            var buffer = Data()
            while case let chunk = reading.availableData, !chunk.isEmpty {
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 0x0A) {
                    collected.lines.withLock {
                        $0.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    }
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
        }
    }

    /// Waits for the first frame and answers it.
    @discardableResult
    func waitForFirstFrame() async throws -> [String: Any] {
        // A limit, not a measure: the whole suite's processes start at once on two cores.
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let frame = output.lines.withLock { $0 }.lazy.compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }.first { $0["type"] as? String == "frame" }
            if let frame { return frame }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw AppProcessError("no frame within 60 s")
    }

    func send(_ events: [String]) {
        input.write(Data(events.map { $0 + "\n" }.joined().utf8))
    }

    /// SIGKILL, then reap.
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? input.close()
    }
}

/// A fresh folder in the scratch folder, removed afterwards.
private final class TemporaryFolder {
    let path: String

    init() throws {
        path = Scratch.folder("microapp-kill").path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Asks the system's SQLite about a database file (through dlopen: this test target links no SQLite).
private enum SQLiteProbe {
    private typealias Open =
        @convention(c) (
            UnsafePointer<CChar>, UnsafeMutablePointer<OpaquePointer?>, Int32, UnsafePointer<CChar>?
        ) -> Int32
    private typealias Prepare =
        @convention(c) (
            OpaquePointer, UnsafePointer<CChar>, Int32, UnsafeMutablePointer<OpaquePointer?>,
            UnsafeMutablePointer<UnsafePointer<CChar>?>?
        ) -> Int32
    private typealias BindInt64 = @convention(c) (OpaquePointer, Int32, Int64) -> Int32
    private typealias Step = @convention(c) (OpaquePointer) -> Int32
    private typealias ColumnText = @convention(c) (OpaquePointer, Int32) -> UnsafePointer<UInt8>?
    private typealias Release = @convention(c) (OpaquePointer?) -> Int32

    /// `PRAGMA integrity_check`'s first row.
    static func integrityCheck(_ path: String) throws -> String? {
        try firstText(path, "PRAGMA integrity_check", id: nil)
    }

    /// Whether `accounts` has a row with `id`.
    static func accountExists(_ path: String, id: Int64) throws -> Bool {
        try firstText(path, "SELECT count(*) FROM accounts WHERE id = ?", id: id) == "1"
    }

    private static func firstText(_ path: String, _ sql: String, id: Int64?) throws -> String? {
        guard let library = dlopen("libsqlite3.so.0", RTLD_NOW) else { throw AppProcessError("no libsqlite3.so.0") }
        func symbol<T>(_ name: String, _: T.Type) throws -> T {
            guard let address = dlsym(library, name) else { throw AppProcessError("no \(name) in libsqlite3") }
            return unsafeBitCast(address, to: T.self)
        }
        let open = try symbol("sqlite3_open_v2", Open.self)
        let prepare = try symbol("sqlite3_prepare_v2", Prepare.self)
        let bind = try symbol("sqlite3_bind_int64", BindInt64.self)
        let step = try symbol("sqlite3_step", Step.self)
        let text = try symbol("sqlite3_column_text", ColumnText.self)
        let finalize = try symbol("sqlite3_finalize", Release.self)
        let close = try symbol("sqlite3_close_v2", Release.self)
        var database: OpaquePointer?
        guard open(path, &database, 0x02 /* SQLITE_OPEN_READWRITE */, nil) == 0, let database else {
            throw AppProcessError("cannot open \(path)")
        }
        defer { _ = close(database) }
        var statement: OpaquePointer?
        guard prepare(database, sql, -1, &statement, nil) == 0, let statement else {
            throw AppProcessError("cannot prepare \(sql) on \(path)")
        }
        defer { _ = finalize(statement) }
        if let id { _ = bind(statement, 1, id) }
        guard step(statement) == 100 /* SQLITE_ROW */, let value = text(statement, 0) else { return nil }
        return String(cString: value)
    }
}
