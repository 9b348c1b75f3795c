import MicroappSDK

/// The characters catalog behind the `characters.page` and `characters.detail` services.
struct CharacterCatalog: Sendable {
    let characters: [CharacterDetail]
    let pageSize: Int

    init(characters: [CharacterDetail] = builtInCharacters, pageSize: Int = 10) {
        self.characters = characters
        self.pageSize = pageSize
    }

    var pageCount: Int { max(1, (characters.count + pageSize - 1) / pageSize) }

    func page(_ request: PageRequest) throws(ServiceError) -> CharacterPage {
        guard (1...pageCount).contains(request.page) else {
            throw ServiceError(code: "not-found", message: "There is no page \(request.page) (1 to \(pageCount))")
        }
        let rows = characters.dropFirst((request.page - 1) * pageSize).prefix(pageSize).map {
            CharacterSummary(id: $0.id, name: $0.name, status: $0.status, species: $0.species)
        }
        return CharacterPage(page: request.page, pageCount: pageCount, characters: rows)
    }

    func detail(_ request: CharacterRequest) throws(ServiceError) -> CharacterDetail {
        guard let character = characters.first(where: { $0.id == request.id }) else {
            throw ServiceError(code: "not-found", message: "No character with id \(request.id)")
        }
        return character
    }
}
