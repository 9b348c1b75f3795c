import DemoServices
import MicroappSDK
import TestScratch
import Testing

@Suite("Accounts: sign up, sign in, passwords hashed with libcrypt")
struct AccountTests {
    let store: TestStore
    init() throws { store = try TestStore() }

    @Test("sign up answers the session; sign in with the same credentials answers it again", .offThePool)
    func signUpThenIn() throws {
        let session = try store.accounts.signUp(
            NewAccount(name: " Morty ", email: "Morty@Example.com", password: "aw-jeez-rick"))
        #expect(session.name == "Morty" && session.email == "morty@example.com" && !session.accountID.isEmpty)
        #expect(try store.accounts.signIn(Credentials(email: "MORTY@example.com", password: "aw-jeez-rick")) == session)
        #expect(try store.accounts.session(accountID: session.accountID) == session)
    }

    @Test("a wrong password and an unknown email get the same answer", .offThePool)
    func wrongPassword() throws {
        _ = try store.accounts.signUp(NewAccount(name: "Morty", email: "morty@example.com", password: "aw-jeez-rick"))
        let wrong = #expect(throws: ServiceError.self) {
            try store.accounts.signIn(Credentials(email: "morty@example.com", password: "aw-jeez-morty"))
        }
        let unknown = #expect(throws: ServiceError.self) {
            try store.accounts.signIn(Credentials(email: "nobody@example.com", password: "aw-jeez-rick"))
        }
        #expect(wrong == ServiceError(code: "wrong-password", message: "Wrong email or password"))
        #expect(unknown == wrong)
    }

    @Test("an email is taken in any case", .offThePool)
    func duplicate() throws {
        _ = try store.accounts.signUp(NewAccount(name: "Morty", email: "morty@example.com", password: "aw-jeez-rick"))
        let error = #expect(throws: ServiceError.self) {
            try store.accounts.signUp(
                NewAccount(name: "Evil Morty", email: " MORTY@Example.COM ", password: "12345678"))
        }
        #expect(error?.code == "account-exists")
        #expect(try store.database.query("SELECT count(*) FROM accounts").first?.integer(0) == 1)
    }

    @Test(
        "bad input is refused with the field's code",
        .offThePool,
        arguments: [
            (NewAccount(name: "  ", email: "a@b.co", password: "12345678"), "invalid-name"),
            (NewAccount(name: "A", email: "not-an-email", password: "12345678"), "invalid-email"),
            (NewAccount(name: "A", email: "a@b", password: "12345678"), "invalid-email"),
            (NewAccount(name: "A", email: "a b@c.de", password: "12345678"), "invalid-email"),
            (NewAccount(name: "A", email: "@c.de", password: "12345678"), "invalid-email"),
            (NewAccount(name: "A", email: "a@b.co", password: "1234567"), "weak-password"),
            (NewAccount(name: "A", email: "a@b.co", password: String(repeating: "x", count: 513)), "invalid-password"),
            (NewAccount(name: "A", email: "a@b.co", password: "1234\u{0}5678"), "invalid-password"),
        ])
    func validation(account: NewAccount, code: String) throws {
        let error = #expect(throws: ServiceError.self) { try store.accounts.signUp(account) }
        #expect(error?.code == code)
        #expect(try store.database.query("SELECT count(*) FROM accounts").first?.integer(0) == 0)
    }

    @Test("the stored hash is a crypt string of the modern method, never the password", .offThePool)
    func storedHash() throws {
        let password = "wubba-lubba-dub-dub"
        _ = try store.accounts.signUp(NewAccount(name: "Rick", email: "rick@example.com", password: password))
        let hash = try #require(try store.database.query("SELECT password_hash FROM accounts").first?.text(0))
        let hasher = PasswordHasher()
        #expect(hasher.method == .yescrypt)  // libxcrypt on this machine has yescrypt
        #expect(hash.hasPrefix("$y$"))
        #expect(!hash.contains(password))
        #expect(hasher.verify(password, against: hash))
        #expect(!hasher.verify(password + "!", against: hash))
        // Each hash has its own salt.
        #expect(hasher.hash(password) != hasher.hash(password))
    }

    @Test("SHA-512 crypt works as the fallback method", .offThePool)
    func sha512() throws {
        let hasher = PasswordHasher(method: .sha512)
        let hash = try #require(hasher.hash("portal-gun"))
        #expect(hash.hasPrefix("$6$"))
        #expect(hasher.verify("portal-gun", against: hash) && !hasher.verify("portal-gum", against: hash))
        #expect(!hasher.verify("portal-gun", against: "*0"))
        #expect(!hasher.verify("portal-gun", against: ""))
    }

    @Test("deleting an account removes it; signing in then fails", .offThePool)
    func delete() throws {
        let session = try store.accounts.signUp(
            NewAccount(name: "Jerry", email: "jerry@example.com", password: "pluto-is-a-planet"))
        #expect(try store.accounts.delete(accountID: session.accountID))
        #expect(try !store.accounts.delete(accountID: session.accountID))
        #expect(try store.accounts.session(accountID: session.accountID) == nil)
        #expect(throws: ServiceError.self) {
            try store.accounts.signIn(Credentials(email: "jerry@example.com", password: "pluto-is-a-planet"))
        }
    }

    @Test("seeds are applied once: an existing email is left alone, a deleted seed does not come back", .offThePool)
    func seed() throws {
        let existing = try store.accounts.signUp(
            NewAccount(name: "Rick", email: "rick@example.com", password: "mine-mine"))
        let seeds = [
            NewAccount(name: "Rick Sanchez", email: "rick@example.com", password: "portal-gun"),
            NewAccount(name: "Morty Smith", email: "morty@example.com", password: "aw-jeez-rick"),
        ]
        try store.accounts.seed(seeds)
        #expect(try store.accounts.signIn(Credentials(email: "rick@example.com", password: "mine-mine")) == existing)
        let morty = try store.accounts.signIn(Credentials(email: "morty@example.com", password: "aw-jeez-rick"))
        try store.accounts.delete(accountID: morty.accountID)
        try store.accounts.seed(seeds)
        #expect(try store.database.query("SELECT count(*) FROM accounts").first?.integer(0) == 1)
    }
}
