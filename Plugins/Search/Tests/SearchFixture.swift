import Foundation
import MicroappSDK
import MicroappTesting
import Search

/// Search as the tests run it: the real feature with the debounce a test chooses, since a harness makes the
/// Root from a feature type.
enum SearchUnderTest: Feature {
    @TaskLocal static var debounce = Duration.milliseconds(10)

    static var manifest: FeatureManifest { SearchFeature.manifest }

    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root {
        try SearchFeature.makeRoot(context, debounce: debounce)
    }
}

/// Search on a harness, signed in as Rick (read only), with recent queries in memory, every search recorded,
/// and the mock services unless a test swaps one.
@MainActor
struct SearchFixture {
    let session = ObservableProperty<Session?>(MockSearch.session)
    let recents: MockRecents
    let searches = SearchLog()
    let harness: FeatureHarness

    init(
        recents queries: [String] = [], search: Service<SearchQuery, SearchResults> = .mock,
        recent: Service<Nothing, RecentQueries>? = nil, saveRecent: Service<RecentQuery, RecentQueries>? = nil,
        clearRecent: Service<Nothing, RecentQueries>? = nil, debounce: Duration = .milliseconds(10),
        restoring snapshot: Data? = nil
    ) throws {
        let recents = MockRecents(queries)
        self.recents = recents
        let dependencies = TestDependencies()
            .provide(SearchKeys.search, .recorded(in: searches, answering: search))
            .provide(SearchKeys.recent, recent ?? .mockRecent(recents))
            .provide(SearchKeys.saveRecent, saveRecent ?? .mockSave(recents))
            .provide(SearchKeys.clearRecent, clearRecent ?? .mockClear(recents))
            .share(SearchKeys.session, session, access: .read)
        harness = try SearchUnderTest.$debounce.withValue(debounce) {
            try FeatureHarness(
                SearchUnderTest.self, dependencies: dependencies, open: "search://home", restoring: snapshot)
        }
    }

    /// The results list once it has `count` rows.
    func results(_ count: Int) async throws -> ListView? {
        _ = try await harness.eventually { _ in harness.list("results")?.items.count == count }
        return harness.list("results")
    }

    /// Returns once the search service got `texts`; throws after thirty seconds.
    func searched(_ texts: [String]) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while await searches.texts != texts {
            guard ContinuousClock.now < deadline else {
                throw HarnessError("the search service got \(await searches.texts), not \(texts)")
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

/// The texts of every search, in the order the service got them.
actor SearchLog {
    private(set) var texts: [String] = []

    func record(_ text: String) { texts.append(text) }
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

extension FeatureHarness {
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
