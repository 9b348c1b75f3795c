import MicroappSDK

// The host's half of the service contracts. Plugins declare structs with the same names and JSON shapes; the
// resolver compares the type names and the bytes cross the boundary, so no Swift type is shared.

/// Sign-in request.
struct Credentials: Codable, Sendable, Equatable {
    var email: String
    var password: String
}

/// Sign-up request.
struct NewAccount: Codable, Sendable, Equatable {
    var name: String
    var email: String
    var password: String
}

/// A page of the characters list, 1-based.
struct PageRequest: Codable, Sendable, Equatable {
    var page: Int
}

/// One row of the characters list.
struct CharacterSummary: Codable, Sendable, Equatable {
    var id: Int
    var name: String
    var status: String
    var species: String
}

/// A page of characters.
struct CharacterPage: Codable, Sendable, Equatable {
    var page: Int
    var pageCount: Int
    var characters: [CharacterSummary]
}

/// Which character to show.
struct CharacterRequest: Codable, Sendable, Equatable {
    var id: Int
}

/// Everything the detail screen shows.
struct CharacterDetail: Codable, Sendable, Equatable {
    var id: Int
    var name: String
    var status: String
    var species: String
    var origin: String
    var location: String
    var episodeCount: Int
}

/// The keys the demo app's container fills.
enum ServiceKeys {
    static let signIn = DependencyKey<Service<Credentials, Session>>.service("auth.sign-in")
    static let signUp = DependencyKey<Service<NewAccount, Session>>.service("auth.sign-up")
    static let page = DependencyKey<Service<PageRequest, CharacterPage>>.service("characters.page")
    static let detail = DependencyKey<Service<CharacterRequest, CharacterDetail>>.service("characters.detail")
    static let session = DependencyKey<Session?>.session(access: .readWrite)
}
