import MicroappSDK
import MicroappTesting
import Search
import Testing

@MainActor
@Suite("Search when a service fails")
struct SearchFailureTests {
    @Test("a failing search shows an error state whose Retry searches again")
    func failingSearchRetries() async throws {
        let search = try SearchFixture(search: .failing(first: 1, with: .unavailable, then: .mock))
        try search.type("Rick")
        let failed = try await search.harness.eventually { $0.state != .view }
        guard case .error(let panel) = failed.state else {
            Issue.record("expected the error state, got \(failed.state)")
            return
        }
        #expect(panel.title == "Could not search")
        #expect(panel.message == "The search service is unavailable")
        #expect(panel.actions == [Button(id: "retry", title: "Retry")])
        #expect(search.harness.field("query") == nil)

        try search.harness.tap("retry")
        #expect(try await search.results(5)?.items.first?.title == "Rick Sanchez")
        #expect(await search.searches.texts == ["Rick", "Rick"])
    }

    @Test("failing recent searches show an error state whose Retry loads them")
    func failingRecentsRetry() async throws {
        let search = try SearchFixture(
            recents: ["Morty"],
            recent: .failing(first: 1, with: .unavailable, then: .mockRecent(MockRecents(["Morty"]))))
        let failed = try await search.harness.eventually { $0.state != .view }
        guard case .error(let panel) = failed.state else {
            Issue.record("expected the error state, got \(failed.state)")
            return
        }
        #expect(panel.title == "Could not load recent searches")
        try search.harness.tap("retry")
        #expect(try await search.recentList(["Morty"]) != nil)
    }

    @Test("a failing save shows an error state whose Retry saves the query")
    func failingSaveRetries() async throws {
        let search = try SearchFixture(
            saveRecent: .failing(first: 1, with: .unavailable, then: .mockSave(MockRecents())))
        try search.type("Beth")
        _ = try await search.results(1)
        try search.harness.select(0, in: "results")
        #expect(search.harness.openedElsewhere == ["characters://detail/4"])
        _ = try await search.harness.eventually { $0.element(id: "retry") != nil }
        try search.harness.tap("retry")
        try search.type("")
        #expect(try await search.recentList(["Beth"]) != nil)
    }

    @Test("a failing Clear shows an error state and keeps the recent searches")
    func failingClearKeepsRecents() async throws {
        let search = try SearchFixture(recents: ["Rick"], clearRecent: .mockUnavailable)
        _ = try await search.recentList(["Rick"])
        try search.harness.tap("clear-recent")
        let failed = try await search.harness.eventually { $0.state != .view }
        guard case .error(let panel) = failed.state else {
            Issue.record("expected the error state, got \(failed.state)")
            return
        }
        #expect(panel.title == "Could not clear recent searches")
        #expect(await search.recents.queries == ["Rick"])
    }
}
