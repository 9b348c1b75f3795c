import Characters
import Foundation
import MicroappSDK
import MicroappTesting

/// Characters on a harness, signed in as Rick (read only), with the mock services unless a test swaps one.
@MainActor
struct CharactersFixture {
    let session: ObservableProperty<Session?>
    let harness: RootDriver

    init(
        open url: String = "characters://list", page: Service<PageRequest, CharacterPage> = .mock,
        detail: Service<CharacterRequest, CharacterDetail> = .mock, restoring snapshot: Data? = nil
    ) throws {
        session = ObservableProperty(MockCharacters.session)
        let dependencies = DependencyValues()
            .provide(CharactersKeys.page, page)
            .provide(CharactersKeys.detail, detail)
            .share(CharactersKeys.session, session, access: .read)
        harness = try RootDriver(CharactersFeature.self, dependencies: dependencies, open: url, restoring: snapshot)
    }

    /// The list once it holds `count` rows.
    func listed(_ count: Int) async throws -> ListView? {
        _ = try await harness.next { _ in harness.list("characters")?.items.count == count }
        return harness.list("characters")
    }
}

extension ServiceError {
    /// What the characters services say when they are down.
    static let unavailable = ServiceError(code: "unavailable", message: "The characters service is unavailable")
}
