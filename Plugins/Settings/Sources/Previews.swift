import MicroappSDK

extension SettingsFeature {
    /// Every screen of Settings in every state it shows, on its mocks (signed in as Rick): the account; signing
    /// out, and signing out failing; the confirmation before deleting the account, and deleting it.
    @MainActor public static func previews() async throws -> [ScreenPreview] {
        var previews = [try RootDriver(Self.self, open: homeURL).preview()]

        let signOut = try RootDriver(Self.self, open: homeURL, mocks: [SettingsKeys.signOut.id: "failing"])
        try signOut.send(.tap(id: SettingsViewModel.signOutID))
        previews.append(signOut.preview("signing out"))
        try await signOut.next(.error)
        previews.append(signOut.preview())

        let delete = try RootDriver(Self.self, open: homeURL)
        try delete.send(.tap(id: SettingsViewModel.deleteID))
        previews.append(delete.preview())
        try delete.send(.tap(id: SettingsViewModel.confirmDeleteID))
        previews.append(delete.preview("deleting"))
        return previews
    }
}
