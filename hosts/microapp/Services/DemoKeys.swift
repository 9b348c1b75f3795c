@_exported import DemoContracts
import MicroappSDK

/// Every key the demo app's container fills; features declare keys with the same ids and type names.
public enum DemoKeys {
    /// Checks an email and password and answers the account's session.
    public static let signIn = DependencyKey<Service<Credentials, Session>>.service("auth.sign-in")
        .described("Checks an email and password and answers the account's session")
    /// Creates an account and answers its session.
    public static let signUp = DependencyKey<Service<NewAccount, Session>>.service("auth.sign-up")
        .described("Creates an account and answers its session")
    /// Ends the session.
    public static let signOut = DependencyKey<Service<Nothing, Nothing>>.service("auth.sign-out")
        .described("Ends the session")
    /// Deletes the signed-in account (and its recent searches), then ends the session.
    public static let deleteAccount = DependencyKey<Service<Nothing, Nothing>>.service("auth.delete-account")
        .described("Deletes the signed-in account (and its recent searches), then ends the session")
    /// One page of the characters list.
    public static let page = DependencyKey<Service<PageRequest, CharacterPage>>.service("characters.page")
        .described("One page of the characters list")
    /// One character in full.
    public static let detail = DependencyKey<Service<CharacterRequest, CharacterDetail>>.service("characters.detail")
        .described("One character in full")
    /// Characters whose name contains a text.
    public static let search = DependencyKey<Service<SearchQuery, SearchResults>>.service("characters.search")
        .described("Characters whose name contains a text")
    /// The signed-in account's recent queries.
    public static let recentQueries = DependencyKey<Service<Nothing, RecentQueries>>.service("search.recent")
        .described("The signed-in account's recent queries")
    /// Remembers a query for the signed-in account and answers the new list.
    public static let saveRecentQuery = DependencyKey<Service<RecentQuery, RecentQueries>>.service(
        "search.save-recent"
    )
    .described("Remembers a query for the signed-in account and answers the new list")
    /// Forgets the signed-in account's recent queries and answers the (empty) list.
    public static let clearRecentQueries = DependencyKey<Service<Nothing, RecentQueries>>.service(
        "search.clear-recent"
    )
    .described("Forgets the signed-in account's recent queries and answers the (empty) list")
    /// The shared session, nil when signed out; the host owns it read-write.
    public static let session = DependencyKey<Session?>.session(access: .readWrite)
        .described("The shared session, nil when signed out; the host owns it read-write")
}
