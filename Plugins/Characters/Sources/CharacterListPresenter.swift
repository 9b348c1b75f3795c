import MicroappSDK

/// The list screen: pages loaded so far, the next one on request, and the rows a person picks from.
@MainActor
final class CharacterListPresenter {
    static let listID = "characters"
    static let moreID = "more"
    static let retryID = "retry"

    /// The pages loaded so far, in order.
    private(set) var pages: [CharacterPage] = []
    private var loadingPage: Int?
    private var failure: ServiceError?
    private let interactor: CharactersInteractor
    private let wireframe: CharactersWireframe
    private let onChange: () -> Void

    init(interactor: CharactersInteractor, wireframe: CharactersWireframe, onChange: @escaping () -> Void) {
        self.interactor = interactor
        self.wireframe = wireframe
        self.onChange = onChange
    }

    /// Loads the first page unless it is loaded or on its way.
    func willShow() {
        if pages.isEmpty && loadingPage == nil { load(page: 1) }
    }

    /// Takes pages kept by a hot swap.
    func restore(_ pages: [CharacterPage]) {
        self.pages = pages
        failure = nil
    }

    var screen: Screen {
        var content: [Element] = []
        if let name = interactor.signedInName { content.append(.text(Text("Signed in as \(name)", style: .caption))) }
        let state = failure.map(errorState) ?? (pages.isEmpty ? .loading("Loading characters…") : .view)
        guard let last = pages.last else { return Screen(title: "Characters", content: content, state: state) }
        let rows = characters.map { ListView.Item($0.name, columns: [$0.status, $0.species]) }
        content.append(.list(ListView(id: Self.listID, items: rows, footer: "page \(last.page) of \(last.pageCount)")))
        if loadingPage != nil {
            content.append(.text(Text("Loading more…", style: .caption)))
        } else if nextPage != nil {
            content.append(.button(Button(id: Self.moreID, title: "Load more")))
        }
        return Screen(title: "Characters", content: content, state: state)
    }

    func handle(_ action: Action) {
        switch action {
        case .tap(id: Self.moreID) where loadingPage == nil && failure == nil:
            if let nextPage { load(page: nextPage) }
        case .tap(id: Self.retryID) where failure != nil:
            if let nextPage { load(page: nextPage) }
        case .select(id: Self.listID, let index) where characters.indices.contains(index):
            wireframe.showDetail(of: characters[index].id)
        default: break
        }
    }

    private var characters: [CharacterSummary] { pages.flatMap(\.characters) }

    /// The page after the last one loaded, nil once every page is.
    private var nextPage: Int? {
        guard let last = pages.last else { return 1 }
        return last.page < last.pageCount ? last.page + 1 : nil
    }

    private func load(page: Int) {
        loadingPage = page
        failure = nil
        Task { @MainActor in
            let result = await interactor.page(page)
            loadingPage = nil
            switch result {
            // A page that is no longer next (a restore brought it meanwhile) is dropped, never listed twice.
            case .success(let loaded) where loaded.page == nextPage: pages.append(loaded)
            case .success: break
            case .failure(let error): failure = error
            }
            onChange()
        }
    }

    private func errorState(_ error: ServiceError) -> ScreenState {
        .error(
            ErrorPanel(
                title: "Could not load characters", message: error.message,
                actions: [Button(id: Self.retryID, title: "Retry")]))
    }
}
