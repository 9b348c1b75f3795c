import MicroappSDK

extension CharactersFeature {
    /// Every screen of Characters in every state it shows, on its mocks (signed in as Rick): the list loading,
    /// loaded, loading more and failing; a character loading, loaded, unknown and failing.
    @MainActor public static func previews() async throws -> [ScreenPreview] {
        let list = try RootDriver(Self.self, open: CharactersRoute.list.url)
        var previews = [list.preview()]
        try await list.next(.view)
        previews.append(list.preview())
        try list.send(.tap(id: CharacterListPresenter.moreID))
        previews.append(list.preview("loading more"))
        let failingList = try RootDriver(
            Self.self, open: CharactersRoute.list.url, mocks: [CharactersKeys.page.id: "failing"])
        try await failingList.next(.error)
        previews.append(failingList.preview())

        let detail = try RootDriver(Self.self, open: CharactersRoute.detail(id: 2).url)
        previews.append(detail.preview())
        try await detail.next(.view)
        previews.append(detail.preview())
        let unknown = try RootDriver(Self.self, open: CharactersRoute.detail(id: 999).url)
        try await unknown.next(.error)
        previews.append(unknown.preview())
        let failingDetail = try RootDriver(
            Self.self, open: CharactersRoute.detail(id: 2).url, mocks: [CharactersKeys.detail.id: "failing"])
        try await failingDetail.next(.error)
        previews.append(failingDetail.preview("unavailable"))
        return previews
    }
}
