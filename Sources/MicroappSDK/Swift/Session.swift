/// The host's identity type: who is signed in. It is in the SDK, not generic, because the host itself reads it (route
/// guards, the header) and every feature of every app must agree on the one shape it owns.
public struct Session: Codable, Sendable, Equatable {
    /// Stable id of the account.
    public var accountID: String
    /// The email the person signed in with.
    public var email: String
    /// The name shown to people.
    public var name: String

    /// Creates a session.
    public init(accountID: String, email: String, name: String) {
        self.accountID = accountID
        self.email = email
        self.name = name
    }
}

extension DependencyKey where Value == Session? {
    /// The id under which the host shares the session.
    public static let sessionID = "session"

    /// The shared session, nil when signed out; only one feature should ask for read-write access.
    public static func session(access: Access) -> DependencyKey { .state(sessionID, access: access) }
}
