import MicroappSDK

/// How solo (`microapp solo`) answers routes into features that are not loaded: with a stub screen that
/// says where the route would go, instead of the problem screen of the full app.
public struct ForeignRoutes: Sendable, Equatable {
    /// Display names of features that exist but are not loaded, by route scheme (`characters` → `Characters`).
    public var names: [String: String]
    /// The app's sign-in route (`auth://select`): stubbed when a guarded route opens while signed out and no
    /// loaded feature declares a sign-in route.
    public var signIn: String?

    /// Describes the features that are not loaded.
    public init(names: [String: String] = [:], signIn: String? = nil) {
        self.names = names
        self.signIn = signIn
    }

    /// `Characters` for `characters://detail/2`; the scheme when no feature is known by it.
    public func featureName(for url: String) -> String {
        let scheme = Self.scheme(of: url)
        return names[scheme] ?? scheme
    }

    /// The part of `url` before `://` (all of it when there is none).
    static func scheme(of url: String) -> String {
        url.range(of: "://").map { String(url[..<$0.lowerBound]) } ?? url
    }

    /// The host screen shown for `url`: what it would open, and Back.
    static func stubScreen(url: String, feature: String) -> Screen {
        Screen(
            title: "\(feature) is not loaded",
            content: [
                .text(Text("→ would open \(url) (\(feature) is not loaded)")),
                .button(Button(id: "back", title: "Back")),
            ])
    }
}
