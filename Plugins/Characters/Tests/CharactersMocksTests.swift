import Characters
import MicroappSDK
import MicroappTesting
import Testing

@MainActor
@Suite("Characters on its own mocks")
struct CharactersMocksTests {
    @Test("the mocks cover every requirement, signed in as Rick")
    func mocksCoverEveryRequirement() async throws {
        #expect(CharactersFeature.mocks().unmocked(in: CharactersFeature.manifest).isEmpty)
        let harness = try RootDriver(CharactersFeature.self, open: "characters://list")
        let screen = try await harness.next { $0.state == .view }
        #expect(screen.texts.first == "Signed in as Rick Sanchez")
        #expect(harness.list("characters")?.footer == "page 1 of 3")
    }

    @Test("thirty characters come in three pages of ten")
    func thirtyCharactersInThreePages() async throws {
        let pages = Service<PageRequest, CharacterPage>.mock
        var names: [String] = []
        for number in 1...3 {
            let page = try await pages(PageRequest(page: number))
            #expect(page.pageCount == 3)
            #expect(page.characters.count == 10)
            names += page.characters.map(\.name)
        }
        #expect(Set(names).count == 30)
        await #expect(throws: ServiceError.self) { try await pages(PageRequest(page: 4)) }
    }

    @Test("the failing variant shows the error state")
    func failingVariant() async throws {
        let harness = try RootDriver(
            CharactersFeature.self, open: "characters://detail/1", mocks: ["characters.detail": "failing"])
        let screen = try await harness.next { $0.state != .loading("Loading character…") }
        #expect(screen.element(id: "retry") != nil)
    }
}
