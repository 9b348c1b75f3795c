import Foundation
import MicroappCore
import MicroappSDK

/// The composition root of the demo app: every service and piece of shared state features may ask for, on the
/// real services of `DemoServices` (SQLite in the data directory, libcrypt, the persisted session).
public enum DemoContainer {
    /// The account a new database starts with, so the demo can be signed in to at once.
    public static let demoAccount = NewAccount(name: "Rick Sanchez", email: "rick@example.com", password: "portal-gun")

    /// Opens (off the main actor) the data directory (`--data`, nil for the default), its database and session, and the characters
    /// source (`charactersURL`, nil for the bundled catalog), and offers every service of `DemoKeys`. Throws a
    /// `StorageError` or `ConfigurationError` whose description says what, why and how to fix it. Problems the
    /// app survives (a damaged session file) go to `report`, by default as lines on stderr. The default data
    /// directory and a relative one are found in `environment`.
    @MainActor
    public static func open(
        dataDirectory: String?, charactersURL: String?, environment: HostEnvironment,
        report: @escaping @Sendable (String) -> Void = {
            try? FileHandle.standardError.write(contentsOf: Data(($0 + "\n").utf8))
        }
    ) async throws -> Container {
        let backend = try await DemoBackend.open(
            DemoBackend.Configuration(
                dataDirectory: dataDirectory, charactersURL: charactersURL, seedAccounts: [demoAccount],
                environment: environment),
            report: { report($0.description) })
        return container(backend)
    }

    /// The same keys and types without opening anything, for commands that only inspect plugins (`routes`,
    /// `doctor`): the resolver needs to know what is offered, and no feature is started.
    @MainActor
    public static func inspection() -> Container { container(nil) }

    /// Offers every key of `DemoKeys`: the backend's services, or stand-ins that answer `unavailable`.
    @MainActor
    private static func container(_ backend: DemoBackend?) -> Container {
        let container = Container()
        container.share(DemoKeys.session, backend?.session ?? ObservableProperty<Session?>(nil))
        func offer<S: ServiceProtocol>(_ key: DependencyKey<S>, _ live: (DemoBackend) -> S) {
            let inert = S(
                erased: ErasedService { _ in
                    throw ServiceError(code: "unavailable", message: "services do not run in inspect commands")
                })
            container.provide(key, backend.map(live) ?? inert)
        }
        offer(DemoKeys.signIn, \.signIn)
        offer(DemoKeys.signUp, \.signUp)
        offer(DemoKeys.signOut, \.signOut)
        offer(DemoKeys.deleteAccount, \.deleteAccount)
        offer(DemoKeys.page, \.page)
        offer(DemoKeys.detail, \.detail)
        offer(DemoKeys.search, \.search)
        offer(DemoKeys.recentQueries, \.recentQueries)
        offer(DemoKeys.saveRecentQuery, \.saveRecentQuery)
        offer(DemoKeys.clearRecentQueries, \.clearRecentQueries)
        return container
    }

    /// Where the app goes after sign-in and where a run starts.
    public static let home = "characters://list"
}
