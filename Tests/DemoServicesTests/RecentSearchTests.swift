import DemoServices
import MicroappSDK
import TestScratch
import Testing

@Suite("Recent searches: per account, most recent first, no duplicates, capped, clearable")
struct RecentSearchTests {
    let store: TestStore
    let rick: Int64
    let morty: Int64

    init() throws {
        store = try TestStore()
        let accounts = store.accounts
        rick = Int64(
            try accounts.signUp(NewAccount(name: "Rick", email: "rick@example.com", password: "portal-gun")).accountID)!
        morty = Int64(
            try accounts.signUp(NewAccount(name: "Morty", email: "morty@example.com", password: "aw-jeez-rick"))
                .accountID)!
    }

    @Test("most recent first; running a query again moves it to the top, whatever its case", .offThePool)
    func orderAndDuplicates() throws {
        for text in ["rick", "morty", "summer"] { _ = try store.recents.save(text, accountID: rick) }
        #expect(try store.recents.recent(accountID: rick) == ["summer", "morty", "rick"])
        #expect(try store.recents.save("  Rick ", accountID: rick) == ["Rick", "summer", "morty"])
        #expect(try store.recents.save("", accountID: rick) == ["Rick", "summer", "morty"])
    }

    @Test("at most 10 are kept, the oldest go", .offThePool)
    func cap() throws {
        for index in 1...15 { _ = try store.recents.save("query \(index)", accountID: rick) }
        let recent = try store.recents.recent(accountID: rick)
        #expect(recent == (6...15).reversed().map { "query \($0)" })
        #expect(try store.database.query("SELECT count(*) FROM recent_searches").first?.integer(0) == 10)
    }

    @Test("each account has its own list; clearing one leaves the other", .offThePool)
    func perAccountAndClear() throws {
        _ = try store.recents.save("portal", accountID: rick)
        _ = try store.recents.save("school", accountID: morty)
        #expect(try store.recents.recent(accountID: rick) == ["portal"])
        #expect(try store.recents.recent(accountID: morty) == ["school"])
        #expect(try store.recents.clear(accountID: rick) == [])
        #expect(try store.recents.recent(accountID: rick) == [])
        #expect(try store.recents.recent(accountID: morty) == ["school"])
    }

    @Test("deleting the account deletes its searches; saving for a missing account fails")
    func cascade() async throws {
        _ = try store.recents.save("portal", accountID: rick)
        _ = try store.recents.save("school", accountID: morty)
        try store.accounts.delete(accountID: String(rick))
        let rows = try store.database.query("SELECT account_id, text FROM recent_searches")
        #expect(rows == [Row([.integer(morty), "school"])])
        let error = await storageError { _ = try store.recents.save("again", accountID: rick) }
        #expect(error?.kind == .constraint)
    }
}
