import MicroappSDK

/// The detail screen of each character shown so far, loaded once and kept.
@MainActor
final class CharacterDetailPresenter {
    static let retryID = "retry"

    private enum Entry {
        case loading
        case loaded(CharacterDetail)
        case failed(ServiceError)
    }

    private var entries: [Int: Entry] = [:]
    private let interactor: CharactersInteractor
    private let wireframe: CharactersWireframe
    private let onChange: () -> Void

    init(interactor: CharactersInteractor, wireframe: CharactersWireframe, onChange: @escaping () -> Void) {
        self.interactor = interactor
        self.wireframe = wireframe
        self.onChange = onChange
    }

    /// The characters loaded so far, by id.
    var loaded: [CharacterDetail] {
        entries.values.compactMap {
            guard case .loaded(let detail) = $0 else { return nil }
            return detail
        }.sorted { $0.id < $1.id }
    }

    /// Loads character `id` unless it is loaded or on its way; a failed one is tried again.
    func willShow(_ id: Int) {
        switch entries[id] {
        case .loading, .loaded: break
        case .failed, nil: load(id)
        }
    }

    /// Takes characters kept by a hot swap.
    func restore(_ details: [CharacterDetail]) {
        for detail in details { entries[detail.id] = .loaded(detail) }
    }

    func screen(for id: Int) -> Screen {
        switch entries[id] {
        case .loaded(let detail):
            Screen(
                title: detail.name,
                content: ([
                    "Status: \(detail.status)", "Species: \(detail.species)", "Origin: \(detail.origin)",
                    "Location: \(detail.location)", "Episodes: \(detail.episodeCount)",
                ] + Self.sourceFacts(of: detail)).map { .text(Text($0)) })
        case .failed(let error) where error.code == "not-found":
            // Trying again cannot find it: the way on is back.
            Screen(
                title: "Character", content: [],
                state: .error(
                    ErrorPanel(
                        title: "No such character", message: "No character with id \(id)",
                        actions: [Button(id: CharactersWireframe.backID, title: "Back")])))
        case .failed(let error):
            Screen(
                title: "Character", content: [],
                state: .error(
                    ErrorPanel(
                        title: "Could not load the character", message: error.message,
                        actions: [Button(id: Self.retryID, title: "Retry")])))
        case .loading, nil:
            Screen(title: "Character", content: [], state: .loading("Loading character…"))
        }
    }

    /// What only some sources know (the Rick and Morty API does, the bundled catalog does not): shown when known.
    static func sourceFacts(of detail: CharacterDetail) -> [String] {
        [detail.type.flatMap { $0.isEmpty ? nil : "Type: \($0)" }, detail.gender.map { "Gender: \($0)" }]
            .compactMap { $0 }
    }

    func handle(_ action: Action, for id: Int) {
        guard case .failed = entries[id] else { return }
        switch action {
        case .tap(id: Self.retryID): load(id)
        case .tap(id: CharactersWireframe.backID): wireframe.back()
        default: break
        }
    }

    private func load(_ id: Int) {
        entries[id] = .loading
        Task { @MainActor in
            switch await interactor.detail(id) {
            case .success(let detail): entries[id] = .loaded(detail)
            case .failure(let error): entries[id] = .failed(error)
            }
            onChange()
        }
    }
}
