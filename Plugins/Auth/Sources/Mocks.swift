import MicroappSDK

// In-memory stand-ins for the auth services, for running Auth alone and for tests. No state is kept: the
// accounts are constants and a sign-up answers as if it created the account.

/// An account the mock services know: its session and its password.
public struct MockAccount: Sendable {
    /// What signing in as this account opens.
    public let session: Session
    /// The password that signs it in.
    public let password: String

    /// Rick, who signs in with `rick@example.com` / `portal-gun`.
    public static let rick = MockAccount(
        session: Session(accountID: "1", email: "rick@example.com", name: "Rick Sanchez"), password: "portal-gun")
    /// Morty, who signs in with `morty@example.com` / `oh-geez-rick`.
    public static let morty = MockAccount(
        session: Session(accountID: "2", email: "morty@example.com", name: "Morty Smith"), password: "oh-geez-rick")

    static let all = [rick, morty]
    static let unavailable = ServiceError(code: "unavailable", message: "The accounts service is unavailable")
}

extension Service where Request == Credentials, Response == Session {
    /// Signs in the mock accounts; anything else is `wrong-password`.
    public static var mock: Self {
        Self { credentials in
            guard
                let account = MockAccount.all.first(where: {
                    $0.session.email == credentials.email && $0.password == credentials.password
                })
            else { throw ServiceError(code: "wrong-password", message: "Wrong email or password") }
            return account.session
        }
    }

    /// Always `unavailable`, to see the error state.
    public static var mockUnavailable: Self { Self { _ in throw MockAccount.unavailable } }
}

extension Service where Request == NewAccount, Response == Session {
    /// Refuses the mock accounts' emails with `account-exists`; opens a session for any other.
    public static var mock: Self {
        Self { account in
            guard !MockAccount.all.contains(where: { $0.session.email == account.email }) else {
                throw ServiceError(code: "account-exists", message: "An account with this email already exists")
            }
            return Session(accountID: "new-\(account.email)", email: account.email, name: account.name)
        }
    }

    /// Always `unavailable`, to see the error state.
    public static var mockUnavailable: Self { Self { _ in throw MockAccount.unavailable } }
}

extension AuthFeature {
    /// Every requirement met by mocks, signed out: what running Auth alone uses; `failing` variants show the
    /// error state.
    @MainActor public static func mocks() -> Mocks {
        var mocks = Mocks()
        mocks.service(AuthKeys.signIn, .mock)
        mocks.service(AuthKeys.signIn, variant: "failing", .mockUnavailable)
        mocks.service(AuthKeys.signUp, .mock)
        mocks.service(AuthKeys.signUp, variant: "failing", .mockUnavailable)
        mocks.state(AuthKeys.session, nil)
        return mocks
    }
}
