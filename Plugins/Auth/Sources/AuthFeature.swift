import MicroappSDK

/// Sign in and sign up: the feature that writes the shared session.
public enum AuthFeature: Feature {
    /// Routes, the services it calls and the session it owns.
    public static let manifest = FeatureManifest(
        id: "auth", version: 1, displayName: "Auth",
        routes: [
            RouteDeclaration(AuthRoute.select.url, isSignIn: true),
            RouteDeclaration(AuthRoute.signIn.url),
            RouteDeclaration(AuthRoute.signUp.url),
        ],
        requirements: [AuthKeys.signIn.requirement, AuthKeys.signUp.requirement, AuthKeys.session.requirement],
        hasMocks: true)

    /// Builds the Root from the services and session the host hands over.
    @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
        try AuthRoot(context: context)
    }
}

/// The dependencies Auth asks the host for.
public enum AuthKeys {
    /// Checks credentials and opens a session.
    public static let signIn = DependencyKey<Service<Credentials, Session>>.service("auth.sign-in")
    /// Creates an account and opens a session for it.
    public static let signUp = DependencyKey<Service<NewAccount, Session>>.service("auth.sign-up")
    /// The shared session; Auth is its one writer.
    public static let session = DependencyKey<Session?>.session(access: .readWrite)
}
