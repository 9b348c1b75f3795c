import MicroappSDK

extension SearchViewModel {
    /// The field; under it the recent searches while the query is empty, the search's progress and answer
    /// otherwise; the error state over it when something failed.
    var screen: Screen {
        let field = TextField(
            id: Self.queryID, label: "Search characters", text: query, placeholder: "Name, e.g. Rick")
        let below = searchText.isEmpty ? recentElements : answerElements
        // Scripts wait for a search under way (its debounce included) and for recent searches being read.
        let busy = isSearching ? "Searching…" : recentsInFlight > 0 ? "Loading recent searches…" : nil
        return Screen(title: "Search", content: [.field(field)] + below, state: state, busy: busy)
    }

    private var recentElements: [Element] {
        guard !recents.isEmpty else { return [] }
        return [
            .text(Text("Recent searches", style: .headline)),
            .list(ListView(id: Self.recentID, items: recents.map { ListView.Item($0) })),
            .button(Button(id: Self.clearID, title: "Clear")),
        ]
    }

    private var answerElements: [Element] {
        var elements: [Element] = []
        if isSearching { elements.append(.text(Text("Searching…", style: .caption))) }
        guard let answer else { return elements }
        if !answer.characters.isEmpty {
            let rows = answer.characters.map { ListView.Item($0.name, columns: [$0.status, $0.species]) }
            elements.append(.list(ListView(id: Self.resultsID, items: rows)))
        } else if !isSearching {
            elements.append(.text(Text("No characters match “\(answer.query)”")))
        }
        return elements
    }

    private var state: ScreenState {
        guard let failure else { return .view }
        return .error(
            ErrorPanel(
                title: Self.title(of: failure.work), message: failure.message,
                actions: [Button(id: Self.retryID, title: "Retry")]))
    }

    private static func title(of work: Work) -> String {
        switch work {
        case .search: "Could not search"
        case .loadRecents: "Could not load recent searches"
        case .saveRecent: "Could not save the recent search"
        case .clearRecents: "Could not clear recent searches"
        }
    }
}
