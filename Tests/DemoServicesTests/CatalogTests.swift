import DemoServices
import MicroappSDK
import TestScratch
import Testing

@Suite("Characters shipped with the app")
struct CatalogTests {
    let catalog = CharacterCatalog()

    @Test("at least 100 characters, every line parsed, ids unique and in order", .offThePool)
    func dataset() {
        let all = CharacterCatalog.bundled
        #expect(all.count >= 100)
        #expect(all.map(\.id) == Array(1...all.count))
        #expect(Set(all.map(\.name)).count == all.count)
        #expect(all.allSatisfy { ["Alive", "Dead", "unknown"].contains($0.status) && !$0.species.isEmpty })
        #expect(all.first?.name == "Rick Sanchez" && all[1].name == "Morty Smith")
    }

    @Test("pages of 10; past the last page is not-found", .offThePool)
    func pages() throws {
        let first = try catalog.page(PageRequest(page: 1))
        #expect(first.characters.count == 10 && first.pageCount == 12)
        #expect(first.characters[1] == CharacterSummary(id: 2, name: "Morty Smith", status: "Alive", species: "Human"))
        #expect(try catalog.page(PageRequest(page: 12)).characters.last?.id == CharacterCatalog.bundled.count)
        for page in [0, 13, -1] {
            let error = #expect(throws: ServiceError.self) { try catalog.page(PageRequest(page: page)) }
            #expect(error?.code == "not-found")
        }
    }

    @Test("detail by id; an unknown id is not-found", .offThePool)
    func detail() throws {
        let detail = try catalog.detail(CharacterRequest(id: 42))
        #expect(detail.name == "Birdperson" && detail.origin == "Bird World" && detail.episodeCount == 4)
        let error = #expect(throws: ServiceError.self) { try catalog.detail(CharacterRequest(id: 9999)) }
        #expect(error == ServiceError(code: "not-found", message: "No character with id 9999"))
    }

    @Test("search: case-insensitive substring of names, at most 20, blank finds nothing", .offThePool)
    func search() {
        let morty = catalog.search(SearchQuery(text: "MORTY")).characters
        #expect(morty.contains { $0.name == "Morty Smith" } && morty.contains { $0.name == "Evil Morty" })
        #expect(morty.allSatisfy { $0.name.lowercased().contains("morty") })
        #expect(CharacterCatalog.bundled.filter { $0.name.contains("e") }.count > 20)
        #expect(catalog.search(SearchQuery(text: "E")).characters.count == 20)  // more match; capped
        #expect(catalog.search(SearchQuery(text: "squanch")).characters.map(\.name) == ["Squanchy"])
        #expect(catalog.search(SearchQuery(text: "   ")).characters.isEmpty)
        #expect(catalog.search(SearchQuery(text: "zzzz")).characters.isEmpty)
    }
}
