import MicroappSDK

extension SearchFeature {
    /// Every screen of Search in every state it shows, on its mocks (signed in as Rick, with recent searches
    /// "Morty" and "Rick"): the recent searches, a search under way, its results, a search that finds nobody and
    /// the search service failing.
    @MainActor public static func previews() async throws -> [ScreenPreview] {
        let home = try RootDriver(Self.self, open: SearchRoute.home.url)
        try await home.next(where: { shows($0, SearchViewModel.recentID) })
        var previews = [home.preview()]
        try home.send(.input(id: SearchViewModel.queryID, text: "Rick"))
        previews.append(home.preview("searching"))
        try await home.next(where: { shows($0, SearchViewModel.resultsID) })
        previews.append(home.preview("results"))

        let nobody = try RootDriver(
            Self.self, open: SearchRoute.home.url, mocks: [SearchKeys.search.id: "empty"])
        try nobody.send(.input(id: SearchViewModel.queryID, text: "Squanchy"))
        try await nobody.next(where: { $0.content.contains { isText($0, startingWith: "No characters match") } })
        previews.append(nobody.preview("no match"))

        let failing = try RootDriver(
            Self.self, open: SearchRoute.home.url, mocks: [SearchKeys.search.id: "failing"])
        try failing.send(.input(id: SearchViewModel.queryID, text: "Rick"))
        try await failing.next(.error)
        previews.append(failing.preview())
        return previews
    }

    /// Whether `screen` shows the element `id` (the recent searches, the results).
    private static func shows(_ screen: Screen, _ id: String) -> Bool {
        screen.interactiveElements.contains { $0.id == id }
    }

    /// Whether `element` is text that starts with `prefix`.
    private static func isText(_ element: Element, startingWith prefix: String) -> Bool {
        guard case .text(let text) = element else { return false }
        return text.value.hasPrefix(prefix)
    }
}
