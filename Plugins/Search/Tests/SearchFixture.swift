import Foundation
import MicroappSDK
import MicroappTesting
import Search

/// Search on a harness, signed in as Rick (read only), with recent queries in memory, every search recorded,
/// the mock services unless a test swaps one, and a test clock: its debounce ends only when a test advances it.
@MainActor
struct SearchFixture {
    let session = ObservableProperty<Session?>(MockSearch.session)
    let recents: MockRecents
    let searches = SearchLog()
    let clock = TestClock()
    let harness: RootDriver

    init(
        recents queries: [String] = [], search: Service<SearchQuery, SearchResults> = .mock,
        recent: Service<Nothing, RecentQueries>? = nil, saveRecent: Service<RecentQuery, RecentQueries>? = nil,
        clearRecent: Service<Nothing, RecentQueries>? = nil, restoring snapshot: Data? = nil
    ) throws {
        let recents = MockRecents(queries)
        self.recents = recents
        let dependencies = DependencyValues()
            .provide(SearchKeys.search, .recorded(in: searches, answering: search))
            .provide(SearchKeys.recent, recent ?? .mockRecent(recents))
            .provide(SearchKeys.saveRecent, saveRecent ?? .mockSave(recents))
            .provide(SearchKeys.clearRecent, clearRecent ?? .mockClear(recents))
            .share(SearchKeys.session, session, access: .read)
        harness = try RootDriver(
            SearchFeature.self, dependencies: dependencies, open: "search://home", restoring: snapshot, clock: clock)
    }

    /// Types `text` into the query and lets its debounce end, as a person who then stops typing.
    func type(_ text: String) throws {
        try harness.type(text, into: "query")
        clock.advance(by: SearchFeature.debounce)
    }

    /// The results list once it has `count` rows.
    func results(_ count: Int) async throws -> ListView? {
        _ = try await harness.eventually { _ in harness.list("results")?.items.count == count }
        return harness.list("results")
    }

    /// Returns once the search service got `texts`; throws after thirty seconds.
    func searched(_ texts: [String]) async throws { try await searches.until(texts) }

    /// Returns once the queue of sleepers on the clock holds `count` (the pending debounces); throws after thirty
    /// seconds.
    func sleeping(_ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while clock.sleepers != count {
            guard ContinuousClock.now < deadline else {
                throw RootDriver.Failure("\(clock.sleepers) debounces wait on the clock, not \(count)")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// The recent searches as listed once they are `queries` (nil: no list).
    func recentList(_ queries: [String]?) async throws -> ListView? {
        _ = try await harness.eventually { _ in harness.list("recent")?.items.map(\.title) == queries }
        return harness.list("recent")
    }
}

/// Texts in the order they were recorded (the searches the service got, or answered).
actor SearchLog {
    private(set) var texts: [String] = []

    func record(_ text: String) { texts.append(text) }

    /// Returns once the texts recorded are `expected`; throws after thirty seconds.
    func until(_ expected: [String]) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while texts != expected {
            guard ContinuousClock.now < deadline else {
                throw RootDriver.Failure("the log holds \(texts), not \(expected)")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

extension Service where Request == SearchQuery, Response == SearchResults {
    /// `service`, writing each query's text into `log` first.
    static func recorded(in log: SearchLog, answering service: Self) -> Self {
        Self { query in
            await log.record(query.text)
            return try await service(query)
        }
    }
}

extension RootDriver {
    /// The screen once `predicate` holds, with patience for a busy test process (other suites may hold the
    /// main actor for a while).
    func eventually(_ predicate: (Screen) -> Bool) async throws -> Screen {
        try await next(where: predicate, timeout: .seconds(30))
    }
}

extension ServiceError {
    /// What the search services say when they are down.
    static let unavailable = ServiceError(code: "unavailable", message: "The search service is unavailable")
}
