import MicroappSDK

/// What the search screen needs from outside, as plain closures (the DI seed's Dependencies struct): the view
/// model never sees a service, a key or the host.
struct SearchDependencies {
    /// Characters whose names contain the text.
    var search: (String) async throws(ServiceError) -> [CharacterSummary]
    /// The recent queries, most recent first.
    var fetchRecent: () async throws(ServiceError) -> [String]
    /// Remembers a query; answers the new list.
    var saveRecent: (String) async throws(ServiceError) -> [String]
    /// Forgets the recent queries; answers the new list.
    var clearRecent: () async throws(ServiceError) -> [String]
    /// Opens a character's detail, a route of another feature.
    var showCharacter: (Int) -> Void
    /// How long typing must pause before a search starts.
    var debounce: Duration
    /// The clock the debounce runs on.
    var clock: any Clock<Duration>
}

extension SearchDependencies {
    /// Closures over the host's services and router, debouncing on the context's clock.
    @MainActor init(context: FeatureContext, debounce: Duration) throws {
        let search = try context.service(SearchKeys.search)
        let recent = try context.service(SearchKeys.recent)
        let save = try context.service(SearchKeys.saveRecent)
        let clear = try context.service(SearchKeys.clearRecent)
        let navigator = context.navigator(SearchRoute.self)
        self.init(
            search: { (text: String) async throws(ServiceError) in
                try await search(SearchQuery(text: text)).characters
            },
            fetchRecent: { () async throws(ServiceError) in try await recent(Nothing()).queries },
            saveRecent: { (text: String) async throws(ServiceError) in
                try await save(RecentQuery(text: text)).queries
            },
            clearRecent: { () async throws(ServiceError) in try await clear(Nothing()).queries },
            showCharacter: { navigator.open("characters://detail/\($0)") },
            debounce: debounce, clock: context.clock)
    }
}
