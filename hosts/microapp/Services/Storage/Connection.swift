import CSQLite

/// SQLite's `SQLITE_TRANSIENT`: SQLite copies bound text before the call returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One open SQLite connection. Not thread-safe: `Database` hands it out under its lock, and transaction bodies
/// get it for the length of the transaction. Every statement is prepared and takes its values as bound parameters.
public final class Connection {
    private let handle: OpaquePointer
    /// The database file.
    public let path: String

    init(handle: OpaquePointer, path: String) {
        self.handle = handle
        self.path = path
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs every statement of `sql` with `parameters` bound in order (`?` placeholders); answers the rows changed.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [SQLValue] = []) throws(StorageError) -> Int {
        _ = try run(sql, parameters)
        return Int(sqlite3_changes(handle))
    }

    /// Runs one query with `parameters` bound in order and answers its rows.
    public func query(_ sql: String, _ parameters: [SQLValue] = []) throws(StorageError) -> [Row] {
        try run(sql, parameters)
    }

    /// Whether SQLite opened the main database read-only.
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Sets how long a statement waits for another connection's lock before failing with `busy`.
    func setBusyTimeout(milliseconds: Int32) { sqlite3_busy_timeout(handle, milliseconds) }

    private func run(_ sql: String, _ parameters: [SQLValue]) throws(StorageError) -> [Row] {
        var rows: [Row] = []
        var remaining = parameters[...]
        let utf8 = Array(sql.utf8CString)
        try utf8.withUnsafeBufferPointer { (buffer) throws(StorageError) in
            guard var cursor = buffer.baseAddress else { return }
            while cursor.pointee != 0 {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                try check(sqlite3_prepare_v2(handle, cursor, -1, &statement, &tail))
                guard let statement else { break }  // only whitespace or a comment was left
                defer { sqlite3_finalize(statement) }
                let count = Int(sqlite3_bind_parameter_count(statement))
                guard count <= remaining.count else { throw misuse("\(count) parameter(s) expected in: \(sql)") }
                for index in 0..<count {
                    try bind(remaining.removeFirst(), at: Int32(index + 1), in: statement)
                }
                rows += try step(statement)
                guard let tail else { break }
                cursor = tail
            }
        }
        guard remaining.isEmpty else { throw misuse("\(remaining.count) parameter(s) left over in: \(sql)") }
        return rows
    }

    private func bind(_ value: SQLValue, at index: Int32, in statement: OpaquePointer) throws(StorageError) {
        let code: Int32 =
            switch value {
            case .integer(let number): sqlite3_bind_int64(statement, index, number)
            case .real(let number): sqlite3_bind_double(statement, index, number)
            case .text(let text): sqlite3_bind_text(statement, index, text, -1, transient)
            case .blob(let bytes): sqlite3_bind_blob(statement, index, bytes, Int32(bytes.count), transient)
            case .null: sqlite3_bind_null(statement, index)
            }
        try check(code)
    }

    private func step(_ statement: OpaquePointer) throws(StorageError) -> [Row] {
        var rows: [Row] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return rows }
            guard code == SQLITE_ROW else { throw error(code) }
            let columns = sqlite3_column_count(statement)
            rows.append(Row((0..<columns).map { column(statement, $0) }))
        }
    }

    private func column(_ statement: OpaquePointer, _ index: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard let text = sqlite3_column_text(statement, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard let bytes = sqlite3_column_blob(statement, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    private func check(_ code: Int32) throws(StorageError) {
        guard code == SQLITE_OK else { throw error(code) }
    }

    private func error(_ code: Int32) -> StorageError {
        StorageError.sqlite(code, message: String(cString: sqlite3_errmsg(handle)), file: path)
    }

    private func misuse(_ message: String) -> StorageError {
        StorageError(
            kind: .failed, file: path, reason: "a statement was given the wrong number of values", detail: message,
            fix: "this is a bug in microapp: report it with this message")
    }
}
