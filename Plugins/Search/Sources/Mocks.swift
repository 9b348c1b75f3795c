import Foundation
import MicroappSDK

// In-memory stand-ins for the search services, for running Search alone and for tests: a few characters of
// the show (with the same ids as Characters' mocks) and recent queries kept the way the host keeps them.

/// The characters the mock search knows, and who the mock session belongs to.
public enum MockSearch {
    /// The signed-in person when Search runs alone.
    public static let session = Session(accountID: "1", email: "rick@example.com", name: "Rick Sanchez")

    /// Every character the mock search can find.
    public static let characters: [CharacterSummary] = [
        (1, "Rick Sanchez", "Alive", "Human"), (2, "Morty Smith", "Alive", "Human"),
        (3, "Summer Smith", "Alive", "Human"), (4, "Beth Smith", "Alive", "Human"),
        (5, "Jerry Smith", "Alive", "Human"), (8, "Adjudicator Rick", "Dead", "Human"),
        (14, "Alien Morty", "unknown", "Alien"), (15, "Alien Rick", "unknown", "Alien"),
        (18, "Antenna Morty", "Alive", "Human"), (19, "Antenna Rick", "unknown", "Human"),
        (21, "Aqua Morty", "unknown", "Humanoid"), (22, "Aqua Rick", "unknown", "Humanoid"),
        (30, "Baby Poopybutthole", "Alive", "Poopybutthole"),
    ].map { CharacterSummary(id: $0.0, name: $0.1, status: $0.2, species: $0.3) }

    /// The characters whose names contain `text`, ignoring case.
    public static func matching(_ text: String) -> [CharacterSummary] {
        let needle = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !needle.isEmpty else { return [] }
        return characters.filter { $0.name.lowercased().contains(needle) }
    }

    static let unavailable = ServiceError(code: "unavailable", message: "The search service is unavailable")
}

/// Recent queries kept in memory as the host keeps them: most recent first, no duplicates, at most 10.
public actor MockRecents {
    /// How many queries are kept.
    public static let limit = 10
    /// The queries, most recent first.
    public private(set) var queries: [String]

    /// Starts with `queries`, most recent first.
    public init(_ queries: [String] = []) { self.queries = queries }

    /// Puts `text` first, drops its older copy and anything past the limit; answers the new list.
    public func save(_ text: String) -> [String] {
        queries = Array(([text] + queries.filter { $0 != text }).prefix(Self.limit))
        return queries
    }

    /// Forgets every query; answers the empty list.
    public func clear() -> [String] {
        queries = []
        return queries
    }
}

extension Service where Request == SearchQuery, Response == SearchResults {
    /// Finds `MockSearch.characters` by part of their name.
    public static var mock: Self { Self { SearchResults(characters: MockSearch.matching($0.text)) } }

    /// Finds nobody, to see the no-results text.
    public static var mockEmpty: Self { Self { _ in SearchResults(characters: []) } }

    /// Answers like `mock` after `delay`, to see the search in progress.
    public static func mockSlow(_ delay: Duration = .seconds(2)) -> Self {
        Self { query in
            try await Task.sleep(for: delay)
            return SearchResults(characters: MockSearch.matching(query.text))
        }
    }

    /// Always `unavailable`, to see the error state.
    public static var mockUnavailable: Self { Self { _ in throw MockSearch.unavailable } }
}

extension Service where Request == Nothing, Response == RecentQueries {
    /// The queries in `recents`.
    public static func mockRecent(_ recents: MockRecents) -> Self {
        Self { _ in RecentQueries(queries: await recents.queries) }
    }

    /// Clears `recents`.
    public static func mockClear(_ recents: MockRecents) -> Self {
        Self { _ in RecentQueries(queries: await recents.clear()) }
    }

    /// Always `unavailable`, to see the error state.
    public static var mockUnavailable: Self { Self { _ in throw MockSearch.unavailable } }
}

extension Service where Request == RecentQuery, Response == RecentQueries {
    /// Saves into `recents`.
    public static func mockSave(_ recents: MockRecents) -> Self {
        Self { RecentQueries(queries: await recents.save($0.text)) }
    }

    /// Always `unavailable`, to see the error state.
    public static var mockUnavailable: Self { Self { _ in throw MockSearch.unavailable } }
}

extension SearchFeature {
    /// Every requirement met by mocks, signed in as Rick with two recent queries: what running Search alone
    /// uses. Every service has a `failing` variant; the search also `empty` and `slow` (2 s).
    @MainActor public static func mocks() -> Mocks {
        let recents = MockRecents(["Morty", "Rick"])
        var mocks = Mocks()
        mocks.service(SearchKeys.search, .mock)
        mocks.service(SearchKeys.search, variant: "empty", .mockEmpty)
        mocks.service(SearchKeys.search, variant: "slow", .mockSlow())
        mocks.service(SearchKeys.search, variant: "failing", .mockUnavailable)
        mocks.service(SearchKeys.recent, .mockRecent(recents))
        mocks.service(SearchKeys.recent, variant: "failing", .mockUnavailable)
        mocks.service(SearchKeys.saveRecent, .mockSave(recents))
        mocks.service(SearchKeys.saveRecent, variant: "failing", .mockUnavailable)
        mocks.service(SearchKeys.clearRecent, .mockClear(recents))
        mocks.service(SearchKeys.clearRecent, variant: "failing", .mockUnavailable)
        mocks.state(SearchKeys.session, MockSearch.session)
        return mocks
    }
}
