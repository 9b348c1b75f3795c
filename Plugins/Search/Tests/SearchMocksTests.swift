import MicroappSDK
import MicroappTesting
import Search
import Testing

@MainActor
@Suite("Search on its own mocks")
struct SearchMocksTests {
    @Test("the mocks cover every requirement, signed in as Rick, with default and failing variants of each service")
    func mocksCoverEveryRequirement() {
        let mocks = SearchFeature.mocks()
        #expect(mocks.unmocked(in: SearchFeature.manifest).isEmpty)
        #expect((mocks.states["session"]?.property as? ObservableProperty<Session?>)?.value?.name == "Rick Sanchez")
        for requirement in SearchFeature.manifest.requirements where requirement.kind == .service {
            let variants = Set(mocks.services[requirement.key]?.variants.keys.map { $0 } ?? [])
            #expect(variants.isSuperset(of: ["default", "failing"]), "\(requirement.key) has \(variants)")
        }
        #expect(
            Set(mocks.services["characters.search"]?.variants.keys.map { $0 } ?? []) == [
                "default", "empty", "slow", "failing",
            ])
    }

    @Test("Search runs on its mocks alone: two recent searches, and Rick finds five characters")
    func runsOnMocks() async throws {
        let harness = try RootDriver(SearchFeature.self, open: "search://home")
        _ = try await harness.eventually { _ in harness.list("recent")?.items.map(\.title) == ["Morty", "Rick"] }
        try harness.type("rick", into: "query")
        _ = try await harness.eventually { _ in harness.list("results")?.items.count == 5 }
    }

    @Test("the empty variant finds nobody and the slow one answers like the default, later")
    func emptyAndSlowVariants() async throws {
        let query = SearchQuery(text: "Morty")
        #expect(try await Service<SearchQuery, SearchResults>.mockEmpty(query).characters.isEmpty)
        let slow = try await Service<SearchQuery, SearchResults>.mockSlow(.milliseconds(20))(query)
        #expect(slow == (try await Service<SearchQuery, SearchResults>.mock(query)))
        #expect(slow.characters.count == 4)
    }

    @Test("recent queries are kept most recent first, without duplicates, at most ten")
    func recentsAreDedupedAndCapped() async {
        let recents = MockRecents(["Rick", "Morty"])
        #expect(await recents.save("Morty") == ["Morty", "Rick"])
        for number in 1...12 { _ = await recents.save("query \(number)") }
        #expect(await recents.queries.count == 10)
        #expect(await recents.queries.first == "query 12")
    }

    @Test("the manifest declares one guarded route and the search services, reading the session only")
    func manifestDeclaresRouteAndNeeds() throws {
        let manifest = try ManifestCoding.decode(try ManifestCoding.encode(SearchFeature.manifest))
        #expect(manifest.routes == [RouteDeclaration("search://home", requiresSession: true)])
        #expect(
            manifest.requirements.map(\.key) == [
                "characters.search", "search.recent", "search.save-recent", "search.clear-recent", "session",
            ])
        #expect(
            manifest.requirements.map(\.type) == [
                "Service<SearchQuery, SearchResults>", "Service<Nothing, RecentQueries>",
                "Service<RecentQuery, RecentQueries>", "Service<Nothing, RecentQueries>", "Optional<Session>",
            ])
        #expect(manifest.requirements.allSatisfy { $0.access == .read })
        #expect(manifest.version == 1 && manifest.displayName == "Search" && manifest.hasMocks)
    }
}
