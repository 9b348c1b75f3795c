import MicroappSDK
import MicroappTesting
import Search
import Testing

@MainActor
@Suite("Search provides a summary of recent searches to other features")
struct SearchProvidesTests {
    @Test("the manifest offers search.recent-summary, described, built on the recent queries it requires")
    func manifestDeclaresTheProvision() throws {
        let provision = try #require(SearchFeature.manifest.provides.first)
        #expect(SearchFeature.manifest.provides.count == 1)
        #expect(provision.key == "search.recent-summary")
        #expect(provision.type == "Service<Nothing, RecentSearchSummary>")
        #expect(provision.uses == ["search.recent"])
        #expect(provision.summary == "How many queries the signed-in account searched recently, and the last one")
    }

    @Test("the service answers how many recent queries there are and the last one, read anew at each call")
    func summaryFollowsRecentQueries() async throws {
        let recents = MockRecents(["morty", "rick"])
        let context = FeatureContext(
            manifest: SearchFeature.manifest,
            source: DependencyValues().provide(SearchKeys.recent, .mockRecent(recents)),
            navigation: NoNavigation(), invalidate: {})
        let erased = try #require(SearchFeature.provide(context).services[SearchKeys.recentSummary.id])
        let summary = Service<Nothing, RecentSearchSummary>(erased: erased)
        #expect(try await summary(Nothing()) == RecentSearchSummary(count: 2, last: "morty"))
        _ = await recents.save("summer")
        #expect(try await summary(Nothing()) == RecentSearchSummary(count: 3, last: "summer"))
        _ = await recents.clear()
        #expect(try await summary(Nothing()) == RecentSearchSummary(count: 0, last: nil))
    }
}

/// A navigation host for a service called outside any screen: providing a service navigates nowhere.
@MainActor
private final class NoNavigation: NavigationHost {
    func push(_ url: String) {}
    func pop() {}
    func popToRoot() {}
    func open(_ url: String) {}
}
