import MicroappSDK

// In-memory stand-ins for the account services, for running Settings alone and for tests: signed in as Rick,
// and signing out (or deleting the account) clears the mock session as the host would.

/// Who the mock session belongs to, and what the mock services say when they fail.
public enum MockSettings {
    /// The signed-in person when Settings runs alone.
    public static let session = Session(accountID: "1", email: "rick@example.com", name: "Rick Sanchez")

    static let unavailable = ServiceError(code: "unavailable", message: "The accounts service is unavailable")
    static let searchUnavailable = ServiceError(code: "unavailable", message: "not available")
}

extension Service where Request == Nothing, Response == Nothing {
    /// Signs out (or deletes the account) by clearing `session`, as the host does.
    public static func mockSigningOut(_ session: ObservableProperty<Session?>?) -> Self {
        Self { _ in
            await MainActor.run { session?.value = nil }
            return Nothing()
        }
    }

    /// Always `unavailable`, to see the error state.
    public static var mockUnavailable: Self { Self { _ in throw MockSettings.unavailable } }
}

extension Service where Request == Nothing, Response == RecentSearchSummary {
    /// Two recent searches, the last one `rick`, as Search would answer after two searches.
    public static var mockRecentSummary: Self { Self { _ in RecentSearchSummary(count: 2, last: "rick") } }

    /// Always `unavailable`, to see what Settings says when Search cannot answer.
    public static var mockSummaryUnavailable: Self { Self { _ in throw MockSettings.searchUnavailable } }
}

extension SettingsFeature {
    /// Every requirement met by mocks, signed in as Rick: what running Settings alone uses; `failing` variants
    /// show the error state.
    @MainActor public static func mocks() -> Mocks {
        var mocks = Mocks()
        mocks.state(SettingsKeys.session, MockSettings.session)
        let session = mocks.states[SettingsKeys.session.id]?.property as? ObservableProperty<Session?>
        mocks.service(SettingsKeys.signOut, .mockSigningOut(session))
        mocks.service(SettingsKeys.signOut, variant: "failing", .mockUnavailable)
        mocks.service(SettingsKeys.deleteAccount, .mockSigningOut(session))
        mocks.service(SettingsKeys.deleteAccount, variant: "failing", .mockUnavailable)
        mocks.service(SettingsKeys.recentSummary, .mockRecentSummary)
        mocks.service(SettingsKeys.recentSummary, variant: "failing", .mockSummaryUnavailable)
        return mocks
    }
}
