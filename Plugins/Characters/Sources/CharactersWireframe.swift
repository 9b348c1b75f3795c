import MicroappSDK

/// Owns navigation: the presenters say where to go, the wireframe knows how.
@MainActor
struct CharactersWireframe {
    private let navigator: Navigator<CharactersRoute>

    /// The Back button of an error screen that retrying cannot help.
    static let backID = "back"

    init(navigator: Navigator<CharactersRoute>) { self.navigator = navigator }

    /// Shows the detail of character `id` on top of the list.
    func showDetail(of id: Int) { navigator.push(.detail(id: id)) }

    /// Leaves the screen on top (a character that does not exist, an address that is not a screen).
    func back() { navigator.pop() }
}
