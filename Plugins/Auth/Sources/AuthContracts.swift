// The request shapes of the auth services. The host declares structs with the same names and JSON shapes;
// only the bytes cross the plugin boundary.

/// What `auth.sign-in` takes.
public struct Credentials: Codable, Sendable, Equatable {
    /// The account's email.
    public var email: String
    /// The account's password.
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
