import MicroappSDK
import MicroappTesting
import Settings
import Testing

@MainActor
@Suite("Settings shows the recent searches Search provides")
struct SettingsRecentSearchesTests {
    @Test("the account screen says how many recent searches Search reports and the last one")
    func showsSummaryFromSearch() async throws {
        let settings = try SettingsFixture(recentSummary: Service { _ in RecentSearchSummary(count: 3, last: "morty") })
        let screen = try await settings.harness.eventually { $0.busy == nil }
        #expect(screen.texts == ["Signed in as Rick Sanchez", "rick@example.com", "Recent searches: 3 (last: morty)"])
    }

    @Test("the summary is asked for again each time the screen comes on top, so a new search shows")
    func readsSummaryAgainWhenShown() async throws {
        let summaries = SummarySequence([RecentSearchSummary(count: 0, last: nil), .init(count: 1, last: "rick")])
        let settings = try SettingsFixture(recentSummary: Service { _ in await summaries.next() })
        _ = try await settings.harness.eventually { $0.texts.contains("No recent searches") }
        settings.harness.open("settings://home")
        _ = try await settings.harness.eventually { $0.texts.contains("Recent searches: 1 (last: rick)") }
    }

    @Test("while the summary is read the screen is busy, so scripted input waits for it")
    func busyWhileReading() throws {
        let settings = try SettingsFixture(recentSummary: Service { _ in RecentSearchSummary(count: 1, last: "rick") })
        #expect(settings.harness.screen.busy == "Reading recent searches…")
    }

    @Test("when Search cannot answer, the screen says so and its buttons still work")
    func failingSummaryIsShown() async throws {
        let settings = try SettingsFixture(
            recentSummary: Service { _ in throw ServiceError(code: "unavailable", message: "not available") })
        let screen = try await settings.harness.eventually { $0.busy == nil }
        #expect(screen.texts.last == "Recent searches: not available")
        #expect(settings.harness.button("sign-out")?.isEnabled == true)
    }

    @Test("without Search loaded (its optional service missing) no line about recent searches is shown")
    func noSearchNoSummary() throws {
        let settings = try SettingsFixture()
        #expect(settings.harness.screen.busy == nil)
        #expect(settings.harness.screen.texts == ["Signed in as Rick Sanchez", "rick@example.com"])
    }
}

/// Answers the summaries in turn, then the last one again.
actor SummarySequence {
    private var remaining: [RecentSearchSummary]

    init(_ summaries: [RecentSearchSummary]) { remaining = summaries }

    func next() -> RecentSearchSummary { remaining.count > 1 ? remaining.removeFirst() : remaining[0] }
}
