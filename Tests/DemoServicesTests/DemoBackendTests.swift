import DemoServices
import Foundation
import MicroappSDK
import Testing

@Suite("DemoBackend: the services of DemoKeys on a real data directory")
@MainActor
struct DemoBackendTests {
    let directory = TemporaryDirectory()
    let morty = NewAccount(name: "Morty Smith", email: "morty@example.com", password: "aw-jeez-rick")

    func open(
        seed: [NewAccount] = [], report: @escaping @Sendable (StorageError) -> Void = { _ in }
    ) async throws -> DemoBackend {
        try await DemoBackend.open(
            .init(dataDirectory: directory.path, seedAccounts: seed, environment: .process), report: report)
    }

    /// What the Auth feature does: call sign-up, then write the session.
    func signUp(_ backend: DemoBackend, _ account: NewAccount) async throws -> Session {
        let session = try await backend.signUp(account)
        backend.session.value = session
        return session
    }

    @Test("a restart keeps people signed in; signing out is kept too")
    func sessionSurvivesRestart() async throws {
        let first = try await open()
        #expect(first.session.value == nil)
        let session = try await signUp(first, morty)
        #expect(mode(first.dataDirectory.sessionPath) == 0o600)
        #expect(mode(directory.path) == 0o700)
        #expect(try await open().session.value == session)
        _ = try await first.signOut(Nothing())
        #expect(first.session.value == nil)
        #expect(!FileManager.default.fileExists(atPath: first.dataDirectory.sessionPath))
        #expect(try await open().session.value == nil)
        #expect(try await first.signIn(Credentials(email: "morty@example.com", password: "aw-jeez-rick")) == session)
    }

    @Test("a damaged session file starts signed out and is reported")
    func corruptSession() async throws {
        try Data("{\"accountID\":".utf8).write(to: URL(fileURLWithPath: directory.file("session.json")))
        let reports = Collected<StorageError>()
        let backend = try await open(report: { reports.add($0) })
        #expect(backend.session.value == nil)
        #expect(reports.all.map(\.kind) == [.corrupt])
        #expect(reports.all.first?.file == directory.file("session.json"))
    }

    @Test("a session whose account is gone starts signed out and is reported")
    func sessionOfDeletedAccount() async throws {
        let backend = try await open()
        let session = try await signUp(backend, morty)
        _ = try backend.accounts.delete(accountID: session.accountID)
        let reports = Collected<StorageError>()
        #expect(try await open(report: { reports.add($0) }).session.value == nil)
        #expect(reports.all.map(\.reason) == ["the saved session's account no longer exists"])
    }

    @Test("recent searches belong to the signed-in account; signed out they answer signed-out")
    func recentSearches() async throws {
        let backend = try await open()
        let signedOut = await serviceError { _ = try await backend.recentQueries(Nothing()) }
        #expect(signedOut == ServiceError(code: "signed-out", message: "Sign in to see your recent searches"))
        let save = await serviceError { _ = try await backend.saveRecentQuery(RecentQuery(text: "x")) }
        let clear = await serviceError { _ = try await backend.clearRecentQueries(Nothing()) }
        #expect(save?.code == "signed-out" && clear?.code == "signed-out")

        _ = try await signUp(backend, morty)
        _ = try await backend.saveRecentQuery(RecentQuery(text: "rick"))
        #expect(
            try await backend.saveRecentQuery(RecentQuery(text: "summer"))
                == RecentQueries(queries: ["summer", "rick"]))
        _ = try await backend.signOut(Nothing())
        _ = try await signUp(backend, NewAccount(name: "Summer", email: "summer@example.com", password: "phone-addict"))
        #expect(try await backend.recentQueries(Nothing()) == RecentQueries(queries: []))
        _ = try await backend.saveRecentQuery(RecentQuery(text: "ethan"))
        #expect(try await backend.clearRecentQueries(Nothing()) == RecentQueries(queries: []))
    }

    @Test("delete-account removes the account and its searches, then signs out")
    func deleteAccount() async throws {
        let backend = try await open()
        let signedOut = await serviceError { _ = try await backend.deleteAccount(Nothing()) }
        #expect(signedOut?.code == "signed-out")
        let session = try await signUp(backend, morty)
        _ = try await backend.saveRecentQuery(RecentQuery(text: "rick"))
        _ = try await backend.deleteAccount(Nothing())
        #expect(backend.session.value == nil)
        #expect(try backend.accounts.session(accountID: session.accountID) == nil)
        #expect(try backend.database.query("SELECT count(*) FROM recent_searches").first?.integer(0) == 0)
        let signIn = await serviceError {
            _ = try await backend.signIn(Credentials(email: "morty@example.com", password: "aw-jeez-rick"))
        }
        #expect(signIn?.code == "wrong-password")
    }

    @Test("seed accounts are created once in the database's life")
    func seeds() async throws {
        let rick = NewAccount(name: "Rick Sanchez", email: "rick@example.com", password: "portal-gun")
        let backend = try await open(seed: [rick])
        let session = try await backend.signIn(Credentials(email: "rick@example.com", password: "portal-gun"))
        _ = try backend.accounts.delete(accountID: session.accountID)
        let again = try await open(seed: [rick])
        let error = await serviceError {
            _ = try await again.signIn(Credentials(email: "rick@example.com", password: "portal-gun"))
        }
        #expect(error?.code == "wrong-password")
    }

    @Test("characters come through the services: page, detail, search")
    func characters() async throws {
        let backend = try await open()
        #expect(try await backend.page(PageRequest(page: 1)).characters.first?.name == "Rick Sanchez")
        #expect(try await backend.detail(CharacterRequest(id: 2)).name == "Morty Smith")
        #expect(try await backend.search(SearchQuery(text: "squanch")).characters.map(\.id) == [46])
        let error = await serviceError { _ = try await backend.page(PageRequest(page: 99)) }
        #expect(error?.code == "not-found")
    }

    @Test("the keys carry the ids and type names features declare")
    func keys() {
        #expect(DemoKeys.signIn.id == "auth.sign-in" && DemoKeys.signIn.typeName == "Service<Credentials, Session>")
        #expect(DemoKeys.search.typeName == "Service<SearchQuery, SearchResults>")
        #expect(DemoKeys.recentQueries.id == "search.recent" && DemoKeys.saveRecentQuery.id == "search.save-recent")
        #expect(DemoKeys.clearRecentQueries.typeName == "Service<Nothing, RecentQueries>")
        #expect(DemoKeys.signOut.id == "auth.sign-out" && DemoKeys.deleteAccount.id == "auth.delete-account")
        #expect(DemoKeys.session.id == "session" && DemoKeys.session.access == .readWrite)
        #expect(DemoKeys.session.typeName == "Optional<Session>")
    }
}
