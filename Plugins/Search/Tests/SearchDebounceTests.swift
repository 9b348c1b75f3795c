import MicroappSDK
import MicroappTesting
import Search
import Testing

@MainActor
@Suite("The search debounce")
struct SearchDebounceTests {
    @Test("typing quickly sends one search, for the last text, once typing paused for the debounce")
    func debounceSendsOneSearch() async throws {
        let search = try SearchFixture()
        for text in ["R", "Ri", "Ric", "Rick"] {
            try search.harness.type(text, into: "query")
            search.clock.advance(by: SearchFeature.debounce - .milliseconds(1))
        }
        #expect(search.harness.screen.texts == ["Searching…"])
        #expect(search.harness.screen.busy == "Searching…")
        // Each keystroke cancelled the one before, so only the last search waits, and it is not due yet.
        try await search.sleeping(1)
        #expect(await search.searches.texts.isEmpty)
        search.clock.advance(by: .milliseconds(1))
        let list = try #require(try await search.results(5))
        #expect(await search.searches.texts == ["Rick"])
        #expect(list.items.first == ListView.Item("Rick Sanchez", columns: ["Alive", "Human"]))
        #expect(!search.harness.screen.texts.contains("Searching…"))
        #expect(search.harness.screen.busy == nil)
    }

    @Test("emptying the query cancels its pending search and shows the recent searches again")
    func emptyQueryCancels() async throws {
        let search = try SearchFixture(recents: ["Beth"])
        _ = try await search.recentList(["Beth"])
        try search.harness.type("Rick", into: "query")
        #expect(search.harness.list("recent") == nil)
        try search.harness.type(" ", into: "query")
        #expect(search.harness.list("recent")?.items.map(\.title) == ["Beth"])
        #expect(search.harness.screen.busy == nil)
        try search.type("Morty")
        _ = try await search.results(4)
        #expect(await search.searches.texts == ["Morty"])
    }

    @Test("an answer to an older text never replaces the answer to a newer one")
    func staleAnswerIsDropped() async throws {
        let gate = Gate()
        let answered = SearchLog()
        let search = try SearchFixture(
            search: Service { query in
                if query.text == "Beth" { await gate.wait() }
                let results = try await Service<SearchQuery, SearchResults>.mock(query)
                await answered.record(query.text)
                return results
            })
        try search.type("Beth")
        try await search.searched(["Beth"])
        try search.type("Rick")
        _ = try await search.results(5)
        let redraws = search.harness.invalidations
        await gate.open()
        try await answered.until(["Rick", "Beth"])
        // Beth's late answer reaches the view model before a search started after it was answered; had it been
        // drawn, it would have asked for a redraw of its own before Morty's.
        try search.type("Morty")
        _ = try await search.results(4)
        #expect(search.harness.invalidations == redraws + 1, "the late answer for Beth asked for a redraw")
        #expect(await search.searches.texts == ["Beth", "Rick", "Morty"])
    }
}

/// Holds callers until it opens.
actor Gate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Returns once the gate is open.
    func wait() async {
        guard !isOpen else { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Lets every caller through, now and later.
    func open() {
        isOpen = true
        for caller in waiting { caller.resume() }
        waiting = []
    }
}
