import MicroappSDK

/// Search characters by name, with recent searches; a result opens its detail in Characters.
public enum SearchFeature: Feature {
    /// How long typing must pause before a search starts.
    public static let debounce = Duration.milliseconds(300)

    /// One route behind a session (its tab), the search services and the session it reads; it provides the
    /// summary of recent searches that Settings shows.
    public static let manifest = FeatureManifest(
        id: "search", version: 1, displayName: "Search",
        routes: [RouteDeclaration(SearchRoute.home.url, requiresSession: true)],
        requirements: [
            SearchKeys.search.requirement, SearchKeys.recent.requirement, SearchKeys.saveRecent.requirement,
            SearchKeys.clearRecent.requirement, SearchKeys.session.requirement,
        ],
        provides: [Provision(SearchKeys.recentSummary, uses: [SearchKeys.recent.id])],
        hasMocks: true, tab: TabDeclaration(title: "Search", route: SearchRoute.home.url, order: 20))

    /// Offers `search.recent-summary` to the app, counted from the host's recent queries at each call.
    @MainActor public static func provide(_ context: FeatureContext) throws -> Provisions {
        let recent = try context.service(SearchKeys.recent)
        var provisions = Provisions()
        provisions.add(
            SearchKeys.recentSummary,
            Service { _ in
                let queries = try await recent(Nothing()).queries
                return RecentSearchSummary(count: queries.count, last: queries.first)
            })
        return provisions
    }

    /// Builds the Root from the host's services; the debounce runs on the context's clock.
    @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
        try SearchRoot(
            dependencies: SearchDependencies(context: context, debounce: debounce),
            session: context.value(SearchKeys.session), invalidate: { context.invalidate() })
    }
}

/// The dependencies Search asks the host for.
public enum SearchKeys {
    /// Characters whose names contain a text.
    public static let search = DependencyKey<Service<SearchQuery, SearchResults>>.service("characters.search")
    /// The recent queries, most recent first.
    public static let recent = DependencyKey<Service<Nothing, RecentQueries>>.service("search.recent")
    /// Remembers a query; answers the new list.
    public static let saveRecent = DependencyKey<Service<RecentQuery, RecentQueries>>.service("search.save-recent")
    /// Forgets every recent query; answers the new (empty) list.
    public static let clearRecent = DependencyKey<Service<Nothing, RecentQueries>>.service("search.clear-recent")
    /// What Search provides to other features: how many recent queries there are, and the last one.
    public static let recentSummary = DependencyKey<Service<Nothing, RecentSearchSummary>>.service(
        "search.recent-summary"
    )
    .described("How many queries the signed-in account searched recently, and the last one")
    /// Who is signed in, read only: another account must not see this one's query.
    public static let session = DependencyKey<Session?>.session(access: .read)
}

/// The one screen of Search.
enum SearchRoute: FeatureRoute {
    /// The query field, its results and the recent searches.
    case home

    var url: String { "search://home" }

    init?(_ location: Location) {
        guard location.pattern == SearchRoute.home.url else { return nil }
        self = .home
    }
}
