import MicroappSDK

/// The settings screen: the account, Sign out, and Delete account behind a confirmation. It never navigates:
/// once the session is gone the host sends every guarded screen to sign-in by itself.
@MainActor
final class SettingsViewModel {
    /// What the screen needs from outside.
    struct Dependencies {
        var signOut: () async throws(ServiceError) -> Void
        var deleteAccount: () async throws(ServiceError) -> Void
        /// The summary of recent searches (Search's service); nil when no feature provides it.
        var recentSummary: (() async throws(ServiceError) -> RecentSearchSummary)? = nil
    }

    /// A request to the account services.
    enum Work: Equatable {
        case signOut
        case deleteAccount
    }

    /// Where the screen is.
    enum Phase: Equatable {
        case idle
        case confirmingDelete
        case running(Work)
        case failed(Work, message: String)
    }

    static let signOutID = "sign-out"
    static let deleteID = "delete-account"
    static let confirmDeleteID = "confirm-delete"
    static let cancelDeleteID = "cancel-delete"
    static let retryID = "retry"

    private(set) var phase = Phase.idle
    /// The line about recent searches: nil until read (or when nothing provides them).
    private(set) var recentSearches: String?
    /// Whether the summary of recent searches is being read.
    private var readingRecentSearches = false
    private let dependencies: Dependencies
    private let onChange: () -> Void

    init(dependencies: Dependencies, onChange: @escaping () -> Void) {
        self.dependencies = dependencies
        self.onChange = onChange
    }

    func screen(for session: Session?) -> Screen {
        guard let session else { return Screen(title: "Settings", content: [.text(Text("Signed out"))]) }
        return Screen(
            title: "Settings",
            content: [
                .text(Text("Signed in as \(session.name)")),
                .text(Text(session.email, style: .caption)),
            ] + (recentSearches.map { [.text(Text($0, style: .caption))] } ?? []) + [
                .button(Button(id: Self.signOutID, title: "Sign out")),
                .button(Button(id: Self.deleteID, title: "Delete account")),
            ],
            state: state, busy: readingRecentSearches ? "Reading recent searches…" : nil)
    }

    /// Reads the summary of recent searches again (each time the screen comes on top), when something provides it.
    func refreshRecentSearches() {
        guard let read = dependencies.recentSummary, !readingRecentSearches else { return }
        readingRecentSearches = true
        Task { @MainActor in
            do throws(ServiceError) {
                let summary = try await read()
                recentSearches =
                    summary.last.map { "Recent searches: \(summary.count) (last: \($0))" } ?? "No recent searches"
            } catch {
                recentSearches = "Recent searches: \(error.message)"
            }
            readingRecentSearches = false
            onChange()
        }
    }

    func handle(_ action: Action, signedIn: Bool) {
        switch (phase, action) {
        case (.idle, .tap(id: Self.signOutID)) where signedIn: run(.signOut)
        case (.idle, .tap(id: Self.deleteID)) where signedIn: phase = .confirmingDelete
        case (.confirmingDelete, .tap(id: Self.confirmDeleteID)): run(.deleteAccount)
        case (.confirmingDelete, .tap(id: Self.cancelDeleteID)): phase = .idle
        // Retrying a delete does not ask again: the person confirmed it already.
        case (.failed(let work, _), .tap(id: Self.retryID)): run(work)
        default: break
        }
    }

    private func run(_ work: Work) {
        phase = .running(work)
        let call = work == .signOut ? dependencies.signOut : dependencies.deleteAccount
        Task { @MainActor in
            do throws(ServiceError) {
                try await call()
                phase = .idle
            } catch {
                phase = .failed(work, message: error.message)
            }
            onChange()
        }
    }

    private var state: ScreenState {
        switch phase {
        case .idle: .view
        case .confirmingDelete:
            .alert(
                Alert(
                    title: "Delete your account?",
                    message: "This removes your account and your recent searches. It cannot be undone.",
                    actions: [
                        Button(id: Self.confirmDeleteID, title: "Delete"),
                        Button(id: Self.cancelDeleteID, title: "Cancel"),
                    ]))
        case .running(.signOut): .loading("Signing out…")
        case .running(.deleteAccount): .loading("Deleting account…")
        case .failed(let work, let message):
            .error(
                ErrorPanel(
                    title: work == .signOut ? "Could not sign out" : "Could not delete the account",
                    message: message, actions: [Button(id: Self.retryID, title: "Retry")]))
        }
    }
}
