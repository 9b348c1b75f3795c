import Foundation
import MicroappSDK

/// Characters' live Root: assembles interactor, wireframe and presenters, and sends each location to its
/// presenter.
@MainActor
final class CharactersRoot: Root {
    private let list: CharacterListPresenter
    private let detail: CharacterDetailPresenter
    private let wireframe: CharactersWireframe
    private var sessionObservation: Observation?

    init(context: FeatureContext) throws {
        let interactor = CharactersInteractor(
            pageService: try context.service(CharactersKeys.page),
            detailService: try context.service(CharactersKeys.detail),
            session: try context.value(CharactersKeys.session))
        let wireframe = CharactersWireframe(navigator: context.navigator(CharactersRoute.self))
        self.wireframe = wireframe
        let invalidate = { context.invalidate() }
        list = CharacterListPresenter(interactor: interactor, wireframe: wireframe, onChange: invalidate)
        detail = CharacterDetailPresenter(interactor: interactor, wireframe: wireframe, onChange: invalidate)
        sessionObservation = interactor.session.observe { _ in invalidate() }
    }

    func willShow(_ location: Location) {
        switch CharactersRoute(location) {
        case .list: list.willShow()
        case .detail(let id): detail.willShow(id)
        case nil: break
        }
    }

    func screen(at location: Location) -> Screen {
        switch CharactersRoute(location) {
        case .list: list.screen
        case .detail(let id): detail.screen(for: id)
        case nil:
            Screen(
                title: "Characters", content: [],
                state: .error(
                    ErrorPanel(
                        title: "No such screen",
                        message: "Characters has no screen at \(location.url) (a character's id is a number)",
                        actions: [Button(id: CharactersWireframe.backID, title: "Back")])))
        }
    }

    func handle(_ action: Action, at location: Location) {
        switch CharactersRoute(location) {
        case .list: list.handle(action)
        case .detail(let id): detail.handle(action, for: id)
        case nil: if action == .tap(id: CharactersWireframe.backID) { wireframe.back() }
        }
    }

    func snapshot() -> Data? {
        try? JSONEncoder().encode(CharactersSnapshot(pages: list.pages, details: detail.loaded))
    }

    func restore(from snapshot: Data) throws {
        let saved = try JSONDecoder().decode(CharactersSnapshot.self, from: snapshot)
        list.restore(saved.pages)
        detail.restore(saved.details)
    }
}

/// What a person would lose on a hot swap: the pages and characters loaded so far. Every field is optional in
/// the JSON, so any older or newer version's snapshot decodes.
struct CharactersSnapshot: Codable, Equatable {
    var pages: [CharacterPage] = []
    var details: [CharacterDetail] = []

    init(pages: [CharacterPage], details: [CharacterDetail]) {
        self.pages = pages
        self.details = details
    }

    init(from decoder: any Decoder) throws {
        let saved = try decoder.container(keyedBy: CodingKeys.self)
        pages = try saved.decodeIfPresent([CharacterPage].self, forKey: .pages) ?? []
        details = try saved.decodeIfPresent([CharacterDetail].self, forKey: .details) ?? []
    }
}
