import MicroappSDK
import MicroappTesting
import Settings
import Testing

@MainActor
@Suite("Settings on its own mocks")
struct SettingsMocksTests {
    @Test("the mocks cover every requirement, signed in as Rick, with default and failing variants of each service")
    func mocksCoverEveryRequirement() {
        let mocks = SettingsFeature.mocks()
        #expect(mocks.unmocked(in: SettingsFeature.manifest).isEmpty)
        #expect((mocks.states["session"]?.property as? ObservableProperty<Session?>)?.value == MockSettings.session)
        for key in ["auth.sign-out", "auth.delete-account", "search.recent-summary"] {
            #expect(Set(mocks.services[key]?.variants.keys.map { $0 } ?? []) == ["default", "failing"])
        }
    }

    @Test("signing out on the mocks clears the mock session, as the host would")
    func mockSignOutClearsSession() async throws {
        let mocks = SettingsFeature.mocks()
        let harness = try RootDriver(
            SettingsFeature.self, dependencies: try DependencyValues(mocks), open: "settings://home")
        try harness.tap("sign-out")
        let screen = try await harness.eventually { $0.state == .view }
        #expect(screen.texts == ["Signed out"])
        #expect((mocks.states["session"]?.property as? ObservableProperty<Session?>)?.value == nil)
    }

    @Test("the failing variant shows the error state")
    func failingVariant() async throws {
        let harness = try RootDriver(
            SettingsFeature.self, open: "settings://home", mocks: ["auth.delete-account": "failing"])
        try harness.tap("delete-account")
        try harness.tap("confirm-delete")
        let screen = try await harness.eventually { $0.state != .loading("Deleting account…") }
        #expect(screen.element(id: "retry") != nil)
    }

    @Test(
        "the manifest declares one guarded route, the account services, the session read only, and Search's summary as optional"
    )
    func manifestDeclaresRouteAndNeeds() throws {
        let manifest = try ManifestCoding.decode(try ManifestCoding.encode(SettingsFeature.manifest))
        #expect(manifest.routes == [RouteDeclaration("settings://home", requiresSession: true)])
        #expect(
            manifest.requirements.map(\.key) == [
                "auth.sign-out", "auth.delete-account", "session", "search.recent-summary",
            ])
        #expect(
            manifest.requirements.map(\.type) == [
                "Service<Nothing, Nothing>", "Service<Nothing, Nothing>", "Optional<Session>",
                "Service<Nothing, RecentSearchSummary>",
            ])
        #expect(manifest.requirements.map(\.isOptional) == [false, false, false, true])
        #expect(manifest.requirements.allSatisfy { $0.access == .read })
        #expect(manifest.version == 1 && manifest.displayName == "Settings" && manifest.hasMocks)
    }
}
