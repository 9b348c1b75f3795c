import MicroappSDK
import MicroappTesting
import Search
import Testing

@MainActor
@Suite("Searching characters")
struct SearchTests {
    @Test("results list each name with status and species, and keep the typed text")
    func resultsListed() async throws {
        let search = try SearchFixture()
        try search.type("smith")
        let list = try #require(try await search.results(4))
        #expect(list.items.map(\.title) == ["Morty Smith", "Summer Smith", "Beth Smith", "Jerry Smith"])
        #expect(list.items[0].columns == ["Alive", "Human"])
        #expect(search.harness.field("query")?.text == "smith")
        #expect(search.harness.field("query")?.placeholder == "Name, e.g. Rick")
        #expect(search.harness.screen.title == "Search")
    }

    @Test("choosing a result opens its detail in Characters and saves the query to the recent searches")
    func selectOpensDetailAndSaves() async throws {
        let search = try SearchFixture(recents: ["Beth"])
        try search.type("Morty")
        _ = try await search.results(4)
        try search.harness.select(0, in: "results")
        #expect(search.harness.openedElsewhere == ["characters://detail/2"])
        #expect(search.harness.backStack.map(\.url) == ["search://home"])
        try search.type("")
        let recent = try #require(try await search.recentList(["Morty", "Beth"]))
        #expect(recent.items.count == 2)
        #expect(await search.recents.queries == ["Morty", "Beth"])
    }

    @Test("with an empty query the recent searches show, most recent first, with Clear")
    func recentsShown() async throws {
        let search = try SearchFixture(recents: ["Morty", "Rick", "Beth"])
        _ = try #require(try await search.recentList(["Morty", "Rick", "Beth"]))
        #expect(search.harness.screen.texts == ["Recent searches"])
        #expect(search.harness.button("clear-recent")?.title == "Clear")
    }

    @Test("without recent searches there is no list and no Clear")
    func noRecents() async throws {
        let search = try SearchFixture()
        _ = try await search.harness.eventually { _ in search.harness.invalidations > 0 }
        #expect(search.harness.list("recent") == nil)
        #expect(search.harness.button("clear-recent") == nil)
        #expect(search.harness.screen.texts.isEmpty)
    }

    @Test("choosing a recent search fills the query and searches it")
    func selectRecentSearches() async throws {
        let search = try SearchFixture(recents: ["Morty", "Beth"])
        _ = try await search.recentList(["Morty", "Beth"])
        try search.harness.select(1, in: "recent")
        #expect(search.harness.field("query")?.text == "Beth")
        #expect(try await search.results(1)?.items.first?.title == "Beth Smith")
        #expect(await search.searches.texts == ["Beth"])
    }

    @Test("Clear empties the recent searches")
    func clearEmptiesRecents() async throws {
        let search = try SearchFixture(recents: ["Morty", "Rick"])
        _ = try await search.recentList(["Morty", "Rick"])
        try search.harness.tap("clear-recent")
        _ = try await search.recentList(nil)
        #expect(search.harness.button("clear-recent") == nil)
        #expect(await search.recents.queries.isEmpty)
    }

    @Test("a search that finds nobody says no characters match the query")
    func noResults() async throws {
        let search = try SearchFixture()
        try search.type("Squanchy")
        let screen = try await search.harness.eventually { !$0.texts.contains("Searching…") }
        #expect(screen.texts == ["No characters match “Squanchy”"])
        #expect(search.harness.list("results") == nil)
    }

    @Test("an account change forgets the query and loads the new account's recent searches")
    func accountChangeResets() async throws {
        let search = try SearchFixture(recents: ["Rick"])
        try search.type("Rick")
        _ = try await search.results(5)
        search.session.value = Session(accountID: "2", email: "morty@example.com", name: "Morty Smith")
        #expect(search.harness.field("query")?.text == "")
        #expect(search.harness.list("recent") == nil)
        search.harness.open("search://home")
        #expect(try await search.recentList(["Rick"]) != nil)
    }
}
