import MicroappSDK
import MicroappTesting
import Settings

/// Settings on a harness, signed in as Rick (read only), with services that count their calls and answer
/// like the mocks unless a test swaps one.
@MainActor
struct SettingsFixture {
    let session = ObservableProperty<Session?>(MockSettings.session)
    let signOuts = CallCount()
    let deletions = CallCount()
    let harness: RootDriver

    init(
        signOut: Service<Nothing, Nothing>? = nil, deleteAccount: Service<Nothing, Nothing>? = nil,
        recentSummary: Service<Nothing, RecentSearchSummary>? = nil
    ) throws {
        var dependencies = DependencyValues()
            .provide(SettingsKeys.signOut, .counted(in: signOuts, answering: signOut ?? .mockSigningOut(session)))
            .provide(
                SettingsKeys.deleteAccount,
                .counted(in: deletions, answering: deleteAccount ?? .mockSigningOut(session))
            )
            .share(SettingsKeys.session, session, access: .read)
        // Search's service is optional: left out unless a test gives one, as when Search is not loaded.
        if let recentSummary { dependencies = dependencies.provide(SettingsKeys.recentSummary, recentSummary) }
        harness = try RootDriver(SettingsFeature.self, dependencies: dependencies, open: "settings://home")
    }
}

/// How many times a service was called.
actor CallCount {
    private(set) var value = 0

    func increment() { value += 1 }
}

extension Service where Request == Nothing, Response == Nothing {
    /// `service`, counting each call in `count` first.
    static func counted(in count: CallCount, answering service: Self) -> Self {
        Self { request in
            await count.increment()
            return try await service(request)
        }
    }
}

extension RootDriver {
    /// The screen once `predicate` holds, with patience for a busy test process (other suites may hold the
    /// main actor for a while).
    func eventually(_ predicate: (Screen) -> Bool) async throws -> Screen {
        try await next(where: predicate, timeout: .seconds(30))
    }
}

extension ServiceError {
    /// What the accounts services say when they are down.
    static let unavailable = ServiceError(code: "unavailable", message: "The accounts service is unavailable")
}
