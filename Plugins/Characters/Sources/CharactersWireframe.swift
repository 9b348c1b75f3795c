import MicroappSDK

/// Owns navigation: the presenters say where to go, the wireframe knows how.
@MainActor
struct CharactersWireframe {
    private let navigator: Navigator<CharactersRoute>

    init(navigator: Navigator<CharactersRoute>) { self.navigator = navigator }

    /// Shows the detail of character `id` on top of the list.
    func showDetail(of id: Int) { navigator.push(.detail(id: id)) }
}
