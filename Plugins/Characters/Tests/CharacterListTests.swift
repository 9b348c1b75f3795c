import Characters
import MicroappSDK
import MicroappTesting
import Testing

@MainActor
@Suite("The characters list")
struct CharacterListTests {
    @Test("shows progress, then the first ten characters with status, species and a page footer")
    func firstPage() async throws {
        let characters = try CharactersFixture()
        #expect(characters.harness.screen.state == .loading("Loading characters…"))
        let list = try #require(try await characters.listed(10))
        #expect(list.items.first == ListView.Item("Rick Sanchez", columns: ["Alive", "Human"]))
        #expect(list.items.last?.title == "Alan Rails")
        #expect(list.footer == "page 1 of 3")
        #expect(characters.harness.screen.title == "Characters")
        #expect(characters.harness.button("more")?.title == "Load more")
    }

    @Test("Load more appends the next page, saying so below the rows while it loads, until none remain")
    func loadMoreAppends() async throws {
        let characters = try CharactersFixture()
        _ = try await characters.listed(10)
        try characters.harness.tap("more")
        #expect(characters.harness.screen.state == .view)
        #expect(characters.harness.screen.texts.last == "Loading more…")
        #expect(characters.harness.button("more") == nil)

        let second = try #require(try await characters.listed(20))
        #expect(second.items[10].title == "Albert Einstein")
        #expect(second.footer == "page 2 of 3")
        try characters.harness.tap("more")
        let third = try #require(try await characters.listed(30))
        #expect(third.footer == "page 3 of 3")
        #expect(characters.harness.button("more") == nil)
        #expect(!characters.harness.screen.texts.contains("Loading more…"))
    }

    @Test("choosing a row pushes that character's detail")
    func selectPushesDetail() async throws {
        let characters = try CharactersFixture()
        _ = try await characters.listed(10)
        try characters.harness.select(2, in: "characters")
        #expect(characters.harness.backStack.map(\.url) == ["characters://list", "characters://detail/3"])
        #expect(characters.harness.openedElsewhere.isEmpty)
        let detail = try await characters.harness.next { $0.title == "Summer Smith" }
        #expect(detail.texts.first == "Status: Alive")
    }

    @Test("says who is signed in, and follows the session as it changes")
    func showsSessionName() async throws {
        let characters = try CharactersFixture()
        #expect(characters.harness.screen.texts.first == "Signed in as Rick Sanchez")
        _ = try await characters.listed(10)
        characters.session.value = Session(accountID: "2", email: "morty@example.com", name: "Morty Smith")
        let screen = try await characters.harness.next { $0.texts.first == "Signed in as Morty Smith" }
        #expect(screen.state == .view)
    }

    @Test("a failing first page shows an error state whose Retry lists the characters")
    func failingFirstPageRetries() async throws {
        let characters = try CharactersFixture(page: .failing(first: 1, with: .unavailable, then: .mock))
        let failed = try await characters.harness.next { $0.state != .loading("Loading characters…") }
        guard case .error(let panel) = failed.state else {
            Issue.record("expected the error state, got \(failed.state)")
            return
        }
        #expect(panel.message == "The characters service is unavailable")
        #expect(panel.actions == [Button(id: "retry", title: "Retry")])
        try characters.harness.tap("retry")
        #expect(try await characters.listed(10)?.footer == "page 1 of 3")
    }

    @Test("a failing later page keeps the loaded rows, and Retry loads the page that failed")
    func failingLaterPageRetries() async throws {
        let flaky = Service<PageRequest, CharacterPage>.failing(first: 1, with: .unavailable, then: .mock)
        let characters = try CharactersFixture(page: Service { try await ($0.page == 2 ? flaky : .mock)($0) })
        _ = try await characters.listed(10)
        try characters.harness.tap("more")
        _ = try await characters.harness.next { $0.element(id: "retry") != nil }
        try characters.harness.tap("retry")
        let list = try #require(try await characters.listed(20))
        #expect(list.items.map(\.title).filter { $0 == "Rick Sanchez" }.count == 1)
        #expect(list.footer == "page 2 of 3")
    }

    @Test("the manifest declares both routes behind a session and reads the session only")
    func manifestDeclaresRoutesAndNeeds() throws {
        let manifest = try ManifestCoding.decode(try ManifestCoding.encode(CharactersFeature.manifest))
        #expect(manifest.routes.map(\.pattern) == ["characters://list", "characters://detail/{id}"])
        #expect(manifest.routes.map(\.requiresSession) == [true, true])
        #expect(manifest.requirements.map(\.key) == ["characters.page", "characters.detail", "session"])
        #expect(manifest.requirements.last?.access == .read)
        #expect(manifest.hasMocks)
    }

    @Test("waiting for a screen that never comes fails with the last screen")
    func waitingTimesOut() async throws {
        let characters = try CharactersFixture()
        await #expect(throws: RootDriver.Failure.self) {
            try await characters.harness.next(where: { $0.title == "Never" }, timeout: .milliseconds(50))
        }
    }
}
