import MicroappSDK
import MicroappTesting
import Search
import Testing

@MainActor
@Suite("The search debounce")
struct SearchDebounceTests {
    @Test("typing quickly sends one search, for the last text, and says so while it waits")
    func debounceSendsOneSearch() async throws {
        // Long enough that no keystroke's debounce ends before the next, even on a loaded machine.
        let debounce = Duration.seconds(2)
        let search = try SearchFixture(debounce: debounce)
        let typing = ContinuousClock.now
        for text in ["R", "Ri", "Ric", "Rick"] {
            try search.harness.type(text, into: "query")
            await Task.yield()
        }
        let typed = ContinuousClock.now - typing
        #expect(search.harness.screen.texts == ["Searching…"])
        let list = try #require(try await search.results(5))
        if typed < debounce {
            #expect(await search.searches.texts == ["Rick"])
        } else {
            // The machine stalled the test longer than the debounce between two keystrokes: that was not typing
            // quickly, and an earlier search may rightly have gone out. The last text is still the one answered.
            #expect(await search.searches.texts.last == "Rick")
        }
        #expect(list.items.first == ListView.Item("Rick Sanchez", columns: ["Alive", "Human"]))
        #expect(!search.harness.screen.texts.contains("Searching…"))
    }

    @Test("emptying the query cancels its pending search and shows the recent searches again")
    func emptyQueryCancels() async throws {
        let search = try SearchFixture(recents: ["Beth"], debounce: .milliseconds(50))
        _ = try await search.recentList(["Beth"])
        try search.harness.type("Rick", into: "query")
        #expect(search.harness.list("recent") == nil)
        try search.harness.type(" ", into: "query")
        #expect(search.harness.list("recent")?.items.map(\.title) == ["Beth"])
        try search.harness.type("Morty", into: "query")
        _ = try await search.results(4)
        #expect(await search.searches.texts == ["Morty"])
    }

    @Test("an answer to an older text never replaces the answer to a newer one")
    func staleAnswerIsDropped() async throws {
        let gate = Gate()
        let search = try SearchFixture(
            search: Service { query in
                if query.text == "Beth" { await gate.wait() }
                return try await Service<SearchQuery, SearchResults>.mock(query)
            }, debounce: .zero)
        try search.harness.type("Beth", into: "query")
        try await search.searched(["Beth"])
        try search.harness.type("Rick", into: "query")
        _ = try await search.results(5)
        await gate.open()
        await #expect(throws: HarnessError.self) {
            try await search.harness.next(
                where: { _ in search.harness.list("results")?.items.count != 5 }, timeout: .milliseconds(200))
        }
        #expect(await search.searches.texts == ["Beth", "Rick"])
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
