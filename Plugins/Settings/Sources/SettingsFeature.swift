import MicroappSDK

/// The signed-in account: who it is, signing out and deleting it.
public enum SettingsFeature: Feature {
    /// The one route: the account and what can be done with it.
    static let homeURL = "settings://home"

    /// One route behind a session (its tab), the account services, the session it reads, and the summary of
    /// recent searches that Search provides (optional: without Search, Settings shows no summary).
    public static let manifest = FeatureManifest(
        id: "settings", version: 1, displayName: "Settings",
        routes: [RouteDeclaration(homeURL, requiresSession: true)],
        requirements: [
            SettingsKeys.signOut.requirement, SettingsKeys.deleteAccount.requirement,
            SettingsKeys.session.requirement, SettingsKeys.recentSummary.requirement,
        ],
        hasMocks: true, tab: TabDeclaration(title: "Settings", route: homeURL, order: 30))

    /// Builds the Root from the host's services and session.
    @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
        let signOut = try context.service(SettingsKeys.signOut)
        let deleteAccount = try context.service(SettingsKeys.deleteAccount)
        var dependencies = SettingsViewModel.Dependencies(
            signOut: { () async throws(ServiceError) in _ = try await signOut(Nothing()) },
            deleteAccount: { () async throws(ServiceError) in _ = try await deleteAccount(Nothing()) })
        // Optional: provided by Search, absent when Search is not loaded.
        if let recentSummary = try? context.service(SettingsKeys.recentSummary) {
            dependencies.recentSummary = { () async throws(ServiceError) in try await recentSummary(Nothing()) }
        }
        return SettingsRoot(
            viewModel: SettingsViewModel(dependencies: dependencies, onChange: { context.invalidate() }),
            session: try context.value(SettingsKeys.session), invalidate: { context.invalidate() })
    }
}

/// The dependencies Settings asks the host for.
public enum SettingsKeys {
    /// Ends the session; the host clears it and every guarded screen sends the person to sign in.
    public static let signOut = DependencyKey<Service<Nothing, Nothing>>.service("auth.sign-out")
    /// Deletes the signed-in account and its recent searches, then signs out.
    public static let deleteAccount = DependencyKey<Service<Nothing, Nothing>>.service("auth.delete-account")
    /// How many recent searches there are and the last one: a service Search provides (see `microapp keys`).
    public static let recentSummary = DependencyKey<Service<Nothing, RecentSearchSummary>>.service(
        "search.recent-summary", optional: true)
    /// Who is signed in, read only: only Auth writes it.
    public static let session = DependencyKey<Session?>.session(access: .read)
}
