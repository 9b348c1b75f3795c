import Foundation
import MicroappCore
import MicroappPlatform
import MicroappSDK

/// Everything behind the demo app's services: the data directory, its database and session file, and the
/// characters source, with every service of `DemoKeys` built on them. The CLI's composition root hands these
/// to its container; tests call them directly.
@MainActor
public final class DemoBackend {
    /// What to open.
    public struct Configuration: Sendable {
        /// `--data DIR`; nil for the default (`$XDG_DATA_HOME/microapp` or `~/.local/share/microapp`).
        public var dataDirectory: String?
        /// The base URL of the Rick and Morty API (or a service that speaks it), given with `--characters-url` (the
        /// option named when it cannot be reached); nil for the characters shipped with the app.
        public var charactersURL: String?
        /// Seconds one HTTP request may take.
        public var charactersTimeout: TimeInterval
        /// How long a write waits for another program's lock before failing with `busy`.
        public var busyTimeoutMilliseconds: Int32
        /// Accounts created once in the database's life (the demo's sign-in).
        public var seedAccounts: [NewAccount]
        /// Where `XDG_DATA_HOME` and `HOME` are read.
        public var environment: HostEnvironment

        /// A configuration; by default the default data directory, the bundled characters, no seed.
        public init(
            dataDirectory: String? = nil, charactersURL: String? = nil, charactersTimeout: TimeInterval = 10,
            busyTimeoutMilliseconds: Int32 = 5000, seedAccounts: [NewAccount] = [],
            environment: HostEnvironment
        ) {
            self.dataDirectory = dataDirectory
            self.charactersURL = charactersURL
            self.charactersTimeout = charactersTimeout
            self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            self.seedAccounts = seedAccounts
            self.environment = environment
        }
    }

    /// The folder of the database and the session file.
    public let dataDirectory: DataDirectory
    /// The database of accounts and recent searches.
    public let database: Database
    /// Accounts.
    public let accounts: AccountStore
    /// Recent searches.
    public let recentSearches: RecentSearchStore
    /// Where characters come from.
    public let characters: any CharactersService
    /// The session, persisted.
    public let persistedSession: PersistedSession

    /// The shared session (nil when signed out).
    public var session: ObservableProperty<Session?> { persistedSession.property }

    /// Opens everything `configuration` names on a thread of its own, awaited (files, the SQLite open and
    /// migration, the seed's yescrypt hashes, the saved session's account): the main actor goes on meanwhile.
    /// Fails with a `StorageError` (data directory, database: corrupt, read-only, locked) or a
    /// `ConfigurationError` (characters URL) that says what, why and how to fix it. `report` hears of problems the
    /// app survives (a damaged session file, a failed save), from any thread.
    public static func open(
        _ configuration: Configuration, report: @escaping @Sendable (StorageError) -> Void
    ) async throws -> DemoBackend {
        let opened = try await BlockingWork.run { () throws -> Opened in try Opened(configuration, report: report) }
        return DemoBackend(opened, report: report)
    }

    private init(_ opened: Opened, report: @escaping @Sendable (StorageError) -> Void) {
        characters = opened.characters
        dataDirectory = opened.dataDirectory
        database = opened.database
        accounts = opened.accounts
        recentSearches = opened.recentSearches
        persistedSession = PersistedSession(file: opened.sessionFile, initial: opened.session, report: report)
    }

    /// What opening does off the main actor: every file and the database, ready to hand to the main actor.
    private struct Opened: Sendable {
        let characters: any CharactersService
        let dataDirectory: DataDirectory
        let database: Database
        let accounts: AccountStore
        let recentSearches: RecentSearchStore
        let sessionFile: SessionFile
        let session: Session?

        init(_ configuration: Configuration, report: (StorageError) -> Void) throws {
            if let text = configuration.charactersURL {
                guard let url = HTTPCharactersService.baseURL(text) else {
                    throw ConfigurationError(
                        subject: text, reason: "the characters URL is not an absolute http or https URL",
                        fix: "give the API's base URL, such as https://rickandmortyapi.com/api")
                }
                characters = HTTPCharactersService(
                    baseURL: url, timeout: configuration.charactersTimeout, option: "--characters-url")
            } else {
                characters = CharacterCatalog()
            }
            dataDirectory = try DataDirectory(configuration.dataDirectory, environment: configuration.environment)
            database = try Database(
                path: dataDirectory.databasePath,
                options: Database.Options(busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds))
            try database.checkWritable()
            try Schema.migrate(database)
            accounts = AccountStore(database: database, date: configuration.environment.date)
            recentSearches = RecentSearchStore(database: database, date: configuration.environment.date)
            try accounts.seed(configuration.seedAccounts)
            sessionFile = SessionFile(path: dataDirectory.sessionPath)
            session = try PersistedSession.load(from: sessionFile, accounts: accounts, report: report)
        }
    }

    /// The id of the signed-in account, or `signed-out`.
    func signedInAccount(_ what: String) throws(ServiceError) -> String {
        guard let id = session.value?.accountID else {
            throw ServiceError(code: "signed-out", message: "Sign in to \(what)")
        }
        return id
    }

    /// Runs recent-search work for the signed-in account; an account deleted meanwhile answers `signed-out`.
    nonisolated func recent(
        _ accountID: String, _ work: (Int64) throws(StorageError) -> [String]
    ) throws(ServiceError) -> RecentQueries {
        guard let id = Int64(accountID) else {
            throw ServiceError(code: "signed-out", message: "The signed-in account no longer exists")
        }
        do {
            return RecentQueries(queries: try work(id))
        } catch let error where error.kind == .constraint {
            throw ServiceError(code: "signed-out", message: "The signed-in account no longer exists")
        } catch {
            throw error.serviceError
        }
    }
}
