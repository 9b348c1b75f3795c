// The request and response shapes of the demo app's services, shared by its host and its features. Each image
// links its own copy: only bytes (JSON) cross the plugin boundary, and the resolver compares the type names, so a
// plugin built against an older copy keeps working as long as the shapes agree.

/// What `auth.sign-in` takes.
public struct Credentials: Codable, Sendable, Equatable {
    /// The account's email.
    public var email: String
    /// The account's password, in clear only for the length of the call.
    public var password: String

    /// Creates credentials.
    public init(email: String, password: String) {
        self.email = email
        self.password = password
    }
}

/// What `auth.sign-up` takes.
public struct NewAccount: Codable, Sendable, Equatable {
    /// The name shown to people.
    public var name: String
    /// The email to sign in with.
    public var email: String
    /// The password to sign in with.
    public var password: String

    /// Creates an account request.
    public init(name: String, email: String, password: String) {
        self.name = name
        self.email = email
        self.password = password
    }
}

/// A page of the characters list, 1-based.
public struct PageRequest: Codable, Sendable, Equatable {
    /// The page number, from 1.
    public var page: Int

    /// Asks for one page.
    public init(page: Int) { self.page = page }
}

/// One row of the characters list.
public struct CharacterSummary: Codable, Sendable, Equatable {
    /// Stable id of the character.
    public var id: Int
    /// The character's name.
    public var name: String
    /// `Alive`, `Dead` or `unknown`.
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

/// A page of characters.
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

/// Which character to show.
public struct CharacterRequest: Codable, Sendable, Equatable {
    /// The character's id.
    public var id: Int

    /// Asks for one character.
    public init(id: Int) { self.id = id }
}

/// Everything the detail screen shows.
public struct CharacterDetail: Codable, Sendable, Equatable {
    /// Stable id of the character.
    public var id: Int
    /// The character's name.
    public var name: String
    /// `Alive`, `Dead` or `unknown`.
    public var status: String
    /// Human, Alien, …
    public var species: String
    /// Where the character comes from.
    public var origin: String
    /// Where the character was last seen.
    public var location: String
    /// In how many episodes the character appears.
    public var episodeCount: Int
    /// `Female`, `Male`, `Genderless` or `unknown`; nil when the source does not say (optional in the JSON, so
    /// a copy of this type without it still decodes).
    public var gender: String?
    /// The subspecies, such as `Rick's Toxic Side`; nil or empty when there is none.
    public var type: String?

    /// Creates a detail.
    public init(
        id: Int, name: String, status: String, species: String, origin: String, location: String, episodeCount: Int,
        gender: String? = nil, type: String? = nil
    ) {
        self.id = id
        self.name = name
        self.status = status
        self.species = species
        self.origin = origin
        self.location = location
        self.episodeCount = episodeCount
        self.gender = gender
        self.type = type
    }

    /// The row this character shows in lists.
    public var summary: CharacterSummary { CharacterSummary(id: id, name: name, status: status, species: species) }
}

/// What `characters.search` takes: part of a name.
public struct SearchQuery: Codable, Sendable, Equatable {
    /// The text to look for, case-insensitively, anywhere in a name.
    public var text: String

    /// Creates a query.
    public init(text: String) { self.text = text }
}

/// What `characters.search` answers.
public struct SearchResults: Codable, Sendable, Equatable {
    /// The characters whose name matches, in catalog order.
    public var characters: [CharacterSummary]

    /// Creates results.
    public init(characters: [CharacterSummary]) { self.characters = characters }
}

/// What `search.save-recent` takes: a query the person ran.
public struct RecentQuery: Codable, Sendable, Equatable {
    /// The query's text.
    public var text: String

    /// Creates a recent query.
    public init(text: String) { self.text = text }
}

/// The signed-in account's recent queries.
public struct RecentQueries: Codable, Sendable, Equatable {
    /// Most recent first, no duplicates, at most 10.
    public var queries: [String]

    /// Creates the list.
    public init(queries: [String]) { self.queries = queries }
}

/// What Search tells other features about the signed-in account's recent searches (its `search.recent-summary`).
public struct RecentSearchSummary: Codable, Sendable, Equatable {
    /// How many queries are remembered.
    public var count: Int
    /// The most recent one; nil when there is none.
    public var last: String?

    /// Creates a summary.
    public init(count: Int, last: String?) {
        self.count = count
        self.last = last
    }
}
