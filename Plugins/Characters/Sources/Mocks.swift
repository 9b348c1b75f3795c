import MicroappSDK

// In-memory stand-ins for the characters services, for running Characters alone and for tests: the first 30
// characters of the show, 10 to a page.

/// The characters the mock services know, and who the mock session belongs to.
public enum MockCharacters {
    /// Rows per page of the mock list.
    public static let pageSize = 10

    /// The signed-in person when Characters runs alone.
    public static let session = Session(accountID: "1", email: "rick@example.com", name: "Rick Sanchez")

    /// Every mock character in full, ids 1 to 30.
    public static let all: [CharacterDetail] = [
        (1, "Rick Sanchez", "Alive", "Human", "Earth (C-137)", "Citadel of Ricks", 51),
        (2, "Morty Smith", "Alive", "Human", "unknown", "Citadel of Ricks", 51),
        (3, "Summer Smith", "Alive", "Human", "Earth (Replacement Dimension)", "Earth (Replacement Dimension)", 42),
        (4, "Beth Smith", "Alive", "Human", "Earth (Replacement Dimension)", "Earth (Replacement Dimension)", 42),
        (5, "Jerry Smith", "Alive", "Human", "Earth (Replacement Dimension)", "Earth (Replacement Dimension)", 39),
        (6, "Abadango Cluster Princess", "Alive", "Alien", "Abadango", "Abadango", 1),
        (7, "Abradolf Lincler", "unknown", "Human", "Earth (Replacement Dimension)", "Testicle Monster Dimension", 2),
        (8, "Adjudicator Rick", "Dead", "Human", "unknown", "Citadel of Ricks", 1),
        (9, "Agency Director", "Dead", "Human", "Earth (Replacement Dimension)", "Earth (Replacement Dimension)", 1),
        (10, "Alan Rails", "Dead", "Human", "unknown", "Worldender's lair", 1),
        (11, "Albert Einstein", "Dead", "Human", "Earth (C-137)", "Earth (Replacement Dimension)", 1),
        (12, "Alexander", "Dead", "Human", "Earth (C-137)", "Anatomy Park", 1),
        (13, "Alien Googah", "unknown", "Alien", "unknown", "Earth (Replacement Dimension)", 1),
        (14, "Alien Morty", "unknown", "Alien", "unknown", "Citadel of Ricks", 1),
        (15, "Alien Rick", "unknown", "Alien", "unknown", "Citadel of Ricks", 1),
        (16, "Amish Cyborg", "Dead", "Alien", "unknown", "Earth (Replacement Dimension)", 1),
        (17, "Annie", "Alive", "Human", "Earth (C-137)", "Anatomy Park", 1),
        (18, "Antenna Morty", "Alive", "Human", "unknown", "Citadel of Ricks", 2),
        (19, "Antenna Rick", "unknown", "Human", "unknown", "unknown", 1),
        (20, "Ants in my Eyes Johnson", "unknown", "Human", "unknown", "Interdimensional Cable", 1),
        (21, "Aqua Morty", "unknown", "Humanoid", "unknown", "Citadel of Ricks", 2),
        (22, "Aqua Rick", "unknown", "Humanoid", "unknown", "Citadel of Ricks", 3),
        (23, "Arcade Alien", "unknown", "Alien", "unknown", "Immortality Field Resort", 4),
        (24, "Armagheadon", "Alive", "Alien", "Signus 5 Expanse", "Signus 5 Expanse", 1),
        (25, "Armothy", "Dead", "unknown", "Post-Apocalyptic Earth", "Post-Apocalyptic Earth", 1),
        (26, "Arthricia", "Alive", "Alien", "Purge Planet", "Purge Planet", 1),
        (27, "Artist Morty", "Alive", "Human", "unknown", "Citadel of Ricks", 2),
        (28, "Attila Starwar", "Alive", "Human", "unknown", "Interdimensional Cable", 3),
        (29, "Baby Legs", "Alive", "Human", "Interdimensional Cable", "Interdimensional Cable", 1),
        (30, "Baby Poopybutthole", "Alive", "Poopybutthole", "unknown", "unknown", 1),
    ].map {
        CharacterDetail(
            id: $0.0, name: $0.1, status: $0.2, species: $0.3, origin: $0.4, location: $0.5, episodeCount: $0.6)
    }

    static let unavailable = ServiceError(code: "unavailable", message: "The characters service is unavailable")
}

extension Service where Request == PageRequest, Response == CharacterPage {
    /// Pages of `MockCharacters.all`; a page past the last is `not-found`.
    public static var mock: Self {
        Self { request in
            let pageCount = (MockCharacters.all.count + MockCharacters.pageSize - 1) / MockCharacters.pageSize
            guard (1...pageCount).contains(request.page) else {
                throw ServiceError(code: "not-found", message: "There is no page \(request.page)")
            }
            let rows = MockCharacters.all.dropFirst((request.page - 1) * MockCharacters.pageSize)
                .prefix(MockCharacters.pageSize)
                .map { CharacterSummary(id: $0.id, name: $0.name, status: $0.status, species: $0.species) }
            return CharacterPage(page: request.page, pageCount: pageCount, characters: rows)
        }
    }

    /// Always `unavailable`, to see the error state.
    public static var mockUnavailable: Self { Self { _ in throw MockCharacters.unavailable } }
}

extension Service where Request == CharacterRequest, Response == CharacterDetail {
    /// Characters of `MockCharacters.all`; any other id is `not-found`.
    public static var mock: Self {
        Self { request in
            guard let detail = MockCharacters.all.first(where: { $0.id == request.id }) else {
                throw ServiceError(code: "not-found", message: "No character with id \(request.id)")
            }
            return detail
        }
    }

    /// Always `unavailable`, to see the error state.
    public static var mockUnavailable: Self { Self { _ in throw MockCharacters.unavailable } }
}

extension CharactersFeature {
    /// Every requirement met by mocks, signed in as `MockCharacters.session`: what running Characters alone
    /// uses; `failing` variants show the error state.
    @MainActor public static func mocks() -> Mocks {
        var mocks = Mocks()
        mocks.service(CharactersKeys.page, .mock)
        mocks.service(CharactersKeys.page, variant: "failing", .mockUnavailable)
        mocks.service(CharactersKeys.detail, .mock)
        mocks.service(CharactersKeys.detail, variant: "failing", .mockUnavailable)
        mocks.state(CharactersKeys.session, MockCharacters.session)
        return mocks
    }
}
