import MicroappSDK

public enum AuthFeature: Feature {
    public static let manifest = FeatureManifest(id: "auth", version: 1, displayName: "Auth", routes: [RouteDeclaration("auth://select", isSignIn: true)])
    @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root { fatalError() }
}
