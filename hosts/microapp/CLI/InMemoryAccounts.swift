import MicroappSDK
import Synchronization

/// Accounts kept in memory for one run (the persistent store comes with the demo-app services).
final class InMemoryAccounts: Sendable {
    private struct Account {
        var id: String
        var name: String
        var password: String
    }
    private let accounts = Mutex<[String: Account]>([:])

    /// Starts with one account people can sign in with.
    init(seed: [(name: String, email: String, password: String)] = [("Rick Sanchez", "rick@example.com", "portal-gun")]) {
        accounts.withLock { accounts in
            for (index, account) in seed.enumerated() {
                accounts[account.email.lowercased()] = Account(
                    id: "account-\(index + 1)", name: account.name, password: account.password)
            }
        }
    }

    func signIn(_ request: Credentials) throws(ServiceError) -> Session {
        let email = request.email.lowercased()
        guard let account = accounts.withLock({ $0[email] }), account.password == request.password else {
            throw ServiceError(code: "wrong-password", message: "Wrong email or password")
        }
        return Session(accountID: account.id, email: email, name: account.name)
    }

    func signUp(_ request: NewAccount) throws(ServiceError) -> Session {
        let email = request.email.lowercased()
        let created = accounts.withLock { accounts -> Account? in
            guard accounts[email] == nil else { return nil }
            let account = Account(id: "account-\(accounts.count + 1)", name: request.name, password: request.password)
            accounts[email] = account
            return account
        }
        guard let created else {
            throw ServiceError(code: "account-exists", message: "An account with \(email) already exists")
        }
        return Session(accountID: created.id, email: email, name: created.name)
    }
}
