import MicroappSDK

extension SettingsFeature {
    /// Every screen of Settings in every state it shows, on its mocks (signed in as Rick, two recent searches):
    /// the account; signing out, and signing out failing; the confirmation before deleting the account, and
    /// deleting it; the account when Search cannot tell its recent searches.
    @MainActor public static func previews() async throws -> [ScreenPreview] {
        var previews = [try await shown().preview()]

        let signOut = try await shown(variants: [SettingsKeys.signOut.id: "failing"])
        try signOut.send(.tap(id: SettingsViewModel.signOutID))
        previews.append(signOut.preview("signing out"))
        try await signOut.next(.error)
        previews.append(signOut.preview())

        let delete = try await shown()
        try delete.send(.tap(id: SettingsViewModel.deleteID))
        previews.append(delete.preview())
        try delete.send(.tap(id: SettingsViewModel.confirmDeleteID))
        previews.append(delete.preview("deleting"))

        let noSummary = try await shown(variants: [SettingsKeys.recentSummary.id: "failing"])
        previews.append(noSummary.preview("search unavailable"))
        return previews
    }

    /// The home screen on the mocks once the summary of recent searches has been read.
    @MainActor private static func shown(variants: [String: String] = [:]) async throws -> RootDriver {
        let session = try RootDriver(Self.self, open: homeURL, mocks: variants)
        try await session.next { $0.busy == nil }
        return session
    }
}
