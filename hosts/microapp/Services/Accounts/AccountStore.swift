import Foundation
import MicroappSDK

/// Accounts in the database: sign up, sign in, delete. Passwords are only ever stored as crypt hashes.
public struct AccountStore: Sendable {
    /// Where the accounts live.
    public let database: Database
    private let hasher: PasswordHasher
    /// The wall clock an account's creation and sign-in times are read from (the host environment's `date`).
    private let date: @Sendable () -> Date

    /// Uses the `accounts` table of `database` (migrated by `Schema`), dating what it writes by `date`.
    public init(
        database: Database, hasher: PasswordHasher = PasswordHasher(), date: @escaping @Sendable () -> Date
    ) {
        self.database = database
        self.hasher = hasher
        self.date = date
    }

    /// Creates an account and answers its session: `invalid-name`, `invalid-email`, `weak-password`, or
    /// `account-exists` when the email (in any case) is taken.
    public func signUp(_ request: NewAccount) throws(ServiceError) -> Session {
        let name = try AccountValidation.name(request.name)
        let email = try AccountValidation.email(request.email)
        let password = try AccountValidation.password(request.password)
        guard try storage({ () throws(StorageError) in try row(email: email) }) == nil else {
            throw Self.exists(email)
        }
        guard let hash = hasher.hash(password) else {
            throw ServiceError(code: "failed", message: "The password could not be hashed; try again")
        }
        let created = Int64(date().timeIntervalSince1970)
        do {
            let rows = try database.query(
                "INSERT INTO accounts (name, email, password_hash, created_at) VALUES (?, ?, ?, ?) RETURNING id",
                [.text(name), .text(email), .text(hash), .integer(created)])
            guard let id = rows.first?.integer(0) else {
                throw ServiceError(code: "failed", message: "The new account has no id")
            }
            return Session(accountID: String(id), email: email, name: name)
        } catch let error as StorageError where error.kind == .constraint {
            throw Self.exists(email)  // someone else took the email between the check and the insert
        } catch let error as StorageError {
            throw error.serviceError
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError(code: "failed", message: String(describing: error))
        }
    }

    /// The session for matching credentials; `wrong-password` (the same answer, taking as long) when the email
    /// is unknown or the password does not match.
    public func signIn(_ request: Credentials) throws(ServiceError) -> Session {
        let email = request.email.trimmingCharacters(in: .whitespaces).lowercased()
        let found = try storage({ () throws(StorageError) in try row(email: email) })
        let wrong = ServiceError(code: "wrong-password", message: "Wrong email or password")
        guard let found else {
            _ = hasher.verify(request.password, against: PasswordHasher.decoy)
            throw wrong
        }
        guard hasher.verify(request.password, against: found.hash) else { throw wrong }
        return found.session
    }

    /// Creates `accounts` once in the database's life, all together or not at all (a crash halfway leaves
    /// them to the next start); later starts, even after the accounts were deleted, do nothing.
    public func seed(_ accounts: [NewAccount]) throws(StorageError) {
        let marker = "accounts"
        let isApplied = { () throws(StorageError) -> Bool in
            try !database.query("SELECT 1 FROM seeds WHERE name = ?", [.text(marker)]).isEmpty
        }
        guard !accounts.isEmpty, try !isApplied() else { return }
        let rows: [[SQLValue]] = accounts.compactMap { account in
            guard let name = try? AccountValidation.name(account.name),
                let email = try? AccountValidation.email(account.email),
                let password = try? AccountValidation.password(account.password), let hash = hasher.hash(password)
            else { return nil }
            return [.text(name), .text(email), .text(hash), .integer(Int64(date().timeIntervalSince1970))]
        }
        try database.transaction { (connection) throws(StorageError) in
            guard try connection.query("SELECT 1 FROM seeds WHERE name = ?", [.text(marker)]).isEmpty else { return }
            for row in rows {
                try connection.execute(
                    """
                    INSERT INTO accounts (name, email, password_hash, created_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (email) DO NOTHING
                    """, row)
            }
            try connection.execute(
                "INSERT INTO seeds (name, applied_at) VALUES (?, ?)",
                [.text(marker), .integer(Int64(date().timeIntervalSince1970))])
        }
    }

    /// Deletes the account with `accountID` and, by cascade, its recent searches; false when there was none.
    @discardableResult
    public func delete(accountID: String) throws(ServiceError) -> Bool {
        guard let id = Int64(accountID) else { return false }
        return try storage { () throws(StorageError) in
            try database.execute("DELETE FROM accounts WHERE id = ?", [.integer(id)]) > 0
        }
    }

    /// The session of the account with `accountID`, nil when there is no such account.
    public func session(accountID: String) throws(StorageError) -> Session? {
        guard let id = Int64(accountID) else { return nil }
        let rows = try database.query("SELECT id, email, name FROM accounts WHERE id = ?", [.integer(id)])
        return rows.first.flatMap(Self.session)
    }

    private func row(email: String) throws(StorageError) -> (session: Session, hash: String)? {
        let rows = try database.query(
            "SELECT id, email, name, password_hash FROM accounts WHERE email = ?", [.text(email)])
        guard let row = rows.first, let session = Self.session(row), let hash = row.text(3) else { return nil }
        return (session, hash)
    }

    private static func session(_ row: Row) -> Session? {
        guard let id = row.integer(0), let email = row.text(1), let name = row.text(2) else { return nil }
        return Session(accountID: String(id), email: email, name: name)
    }

    private static func exists(_ email: String) -> ServiceError {
        ServiceError(code: "account-exists", message: "An account with \(email) already exists")
    }
}

/// Runs storage work, turning its failure into the `ServiceError` features see.
func storage<T>(_ work: () throws(StorageError) -> T) throws(ServiceError) -> T {
    do {
        return try work()
    } catch {
        throw error.serviceError
    }
}

extension StorageError {
    /// How features see this failure: `unavailable` while another program holds the database, else
    /// `storage-failed`, with the reason and the fix in the message.
    public var serviceError: ServiceError {
        ServiceError(
            code: kind == .busy ? "unavailable" : "storage-failed",
            message: "The app's data could not be used: \(reason) (\(detail)). To fix: \(fix)")
    }
}
