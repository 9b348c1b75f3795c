/// Where the app is: a route URL, the pattern it matched and the parameters taken from it.
public struct Location: Codable, Sendable, Equatable, Hashable {
    /// The URL as opened (`characters://detail/2`).
    public var url: String
    /// The declared pattern it matched (`characters://detail/{id}`).
    public var pattern: String
    /// Values of the pattern's parameters (`["id": "2"]`).
    public var parameters: [String: String]

    /// Creates a location.
    public init(url: String, pattern: String, parameters: [String: String] = [:]) {
        self.url = url
        self.pattern = pattern
        self.parameters = parameters
    }
}

/// The host's side of navigation, as a feature sees it. Implemented by the host (and by MicroappTesting).
@MainActor
public protocol NavigationHost: AnyObject {
    /// Pushes `url` onto the back stack (a route of this feature or another).
    func push(_ url: String)
    /// Goes back one screen.
    func pop()
    /// Goes back to the first screen of the calling feature.
    func popToRoot()
    /// Opens `url` across features: same as push, through the router's guards.
    func open(_ url: String)
}

/// A feature's own routes as a type: an enum usually, each case knowing its URL.
public protocol FeatureRoute: Sendable, Equatable {
    /// The URL of this route (`characters://detail/2`).
    var url: String { get }
    /// The route a location stands for, or nil when it is not one of this feature's.
    init?(_ location: Location)
}

/// Push, pop and pop-to-root over a feature's own routes, and `open` for everyone else's.
@MainActor
public struct Navigator<Route: FeatureRoute> {
    private let host: any NavigationHost

    /// Creates a navigator over the host's back stack.
    public init(_ host: any NavigationHost) { self.host = host }

    /// Shows `route` on top of the current screen.
    public func push(_ route: Route) { host.push(route.url) }
    /// Goes back one screen.
    public func pop() { host.pop() }
    /// Goes back to the feature's first screen.
    public func popToRoot() { host.popToRoot() }
    /// Opens another feature's route by URL (`characters://detail/2`).
    public func open(_ url: String) { host.open(url) }
}
