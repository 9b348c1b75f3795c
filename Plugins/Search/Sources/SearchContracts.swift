import MicroappSDK

// The request and response shapes of the search services. The host declares structs with the same names and
// JSON shapes; only the bytes cross the plugin boundary.

/// One character found: what a row of the results shows, and the id its detail route takes.
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

/// What `characters.search` takes: part of a name.
public struct SearchQuery: Codable, Sendable, Equatable {
    /// The text to look for in names.
    public var text: String

    /// Asks for characters whose names contain `text`.
    public init(text: String) { self.text = text }
}

/// What `characters.search` answers.
public struct SearchResults: Codable, Sendable, Equatable {
    /// The characters found, in the service's order.
    public var characters: [CharacterSummary]

    /// Creates results.
    public init(characters: [CharacterSummary]) { self.characters = characters }
}

/// What `search.save-recent` takes: a query worth remembering.
public struct RecentQuery: Codable, Sendable, Equatable {
    /// The query as searched.
    public var text: String

    /// Remembers `text`.
    public init(text: String) { self.text = text }
}

/// The recent queries of the signed-in account, most recent first, without duplicates, at most 10.
public struct RecentQueries: Codable, Sendable, Equatable {
    /// The queries, most recent first.
    public var queries: [String]

    /// Creates the list.
    public init(queries: [String]) { self.queries = queries }
}
