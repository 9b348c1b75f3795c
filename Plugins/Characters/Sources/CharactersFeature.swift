import MicroappSDK

/// The characters list and each character's detail, for signed-in people.
public enum CharactersFeature: Feature {
    /// Routes (both need a session, the list is its tab), the services it calls and the session it reads.
    public static let manifest = FeatureManifest(
        id: "characters", version: 1, displayName: "Characters",
        routes: [
            RouteDeclaration(CharactersRoute.listPattern, requiresSession: true),
            RouteDeclaration(CharactersRoute.detailPattern, requiresSession: true),
        ],
        requirements: [
            CharactersKeys.page.requirement, CharactersKeys.detail.requirement, CharactersKeys.session.requirement,
        ],
        hasMocks: true, tab: TabDeclaration(title: "Characters", route: CharactersRoute.listPattern, order: 10))

    /// Assembles the VIPER parts around the host's services, session and back stack.
    @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
        try CharactersRoot(context: context)
    }
}

/// The dependencies Characters asks the host for.
public enum CharactersKeys {
    /// One page of the list.
    public static let page = DependencyKey<Service<PageRequest, CharacterPage>>.service("characters.page")
    /// One character in full.
    public static let detail = DependencyKey<Service<CharacterRequest, CharacterDetail>>.service("characters.detail")
    /// Who is signed in, read only.
    public static let session = DependencyKey<Session?>.session(access: .read)
}
