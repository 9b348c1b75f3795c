// The request and response shapes of the characters services. The host declares structs with the same names
// and JSON shapes; only the bytes cross the plugin boundary.

/// What `characters.page` takes: a 1-based page number.
public struct PageRequest: Codable, Sendable, Equatable {
    /// The page, from 1.
    public var page: Int

    /// Asks for `page`.
    public init(page: Int) { self.page = page }
}

/// One page of the characters list.
public struct CharacterPage: Codable, Sendable, Equatable {
    /// This page's number, from 1.
    public var page: Int
    /// How many pages there are.
    public var pageCount: Int
    /// The rows of this page.
    public var characters: [CharacterSummary]

    /// Creates a page.
    public init(page: Int, pageCount: Int, characters: [CharacterSummary]) {
        self.page = page
        self.pageCount = pageCount
        self.characters = characters
    }
}

/// One row of the characters list.
public struct CharacterSummary: Codable, Sendable, Equatable {
    /// Stable id, used in `characters://detail/{id}`.
    public var id: Int
    /// The character's name.
    public var name: String
    /// Alive, Dead or unknown.
    public var status: String
    /// Human, Alien, …
    public var species: String

    /// Creates a row.
    public init(id: Int, name: String, status: String, species: String) {
        self.id = id
        self.name = name
        self.status = status
        self.species = species
    }
}

/// What `characters.detail` takes.
public struct CharacterRequest: Codable, Sendable, Equatable {
    /// The character's id.
    public var id: Int

    /// Asks for character `id`.
    public init(id: Int) { self.id = id }
}

/// Everything the detail screen shows about one character.
public struct CharacterDetail: Codable, Sendable, Equatable {
    /// Stable id.
    public var id: Int
    /// The character's name.
    public var name: String
    /// Alive, Dead or unknown.
    public var status: String
    /// Human, Alien, …
    public var species: String
    /// Where the character comes from.
    public var origin: String
    /// Where the character was last seen.
    public var location: String
    /// How many episodes the character is in.
    public var episodeCount: Int

    /// Creates a detail.
    public init(
        id: Int, name: String, status: String, species: String, origin: String, location: String, episodeCount: Int
    ) {
        self.id = id
        self.name = name
        self.status = status
        self.species = species
        self.origin = origin
        self.location = location
        self.episodeCount = episodeCount
    }
}
