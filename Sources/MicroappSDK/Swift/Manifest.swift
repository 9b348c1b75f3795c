/// What a feature says about itself before any of its code runs: identity, routes, needs and offers.
public struct FeatureManifest: Codable, Sendable, Equatable {
    /// Stable identifier, lowercase (`auth`, `characters`); by convention the scheme of the feature's routes.
    public var id: String
    /// Version number shown in the header and in swap notices; bump it with each release of the feature.
    public var version: Int
    /// Name shown to people (`Auth`, `Characters`).
    public var displayName: String
    /// The routes the feature answers; the first one is where the feature starts.
    public var routes: [RouteDeclaration]
    /// What the feature needs from the host or other features.
    public var requirements: [Requirement]
    /// What the feature offers to others.
    public var provides: [Provision]
    /// Whether the feature ships mocks for every requirement, so it can run alone.
    public var hasMocks: Bool
    /// The feature's top-level entry point, shown by the host as a tab of a signed-in app; nil for none (a
    /// manifest without the field decodes to nil).
    public var tab: TabDeclaration?
    /// What the feature does beyond its screens and requirements (`network`, `files:scratch`): the host grants only
    /// these. A manifest without the field (plugins built before SDK 1.1) declares none.
    public var capabilities: [Capability] {
        get { declaredCapabilities ?? [] }
        set { declaredCapabilities = newValue.isEmpty ? nil : newValue }
    }
    // Optional in the JSON, so manifests of SDK 1.0 decode, and those declaring nothing encode as they did.
    private var declaredCapabilities: [Capability]?

    private enum CodingKeys: String, CodingKey {
        case id, version, displayName, routes, requirements, provides, hasMocks, tab
        case declaredCapabilities = "capabilities"
    }

    /// Creates a manifest; requirements and provisions are usually built from the feature's keys.
    public init(
        id: String, version: Int, displayName: String, routes: [RouteDeclaration],
        requirements: [Requirement] = [], provides: [Provision] = [], hasMocks: Bool = false
    ) {
        self.id = id
        self.version = version
        self.displayName = displayName
        self.routes = routes
        self.requirements = requirements
        self.provides = provides
        self.hasMocks = hasMocks
    }

    /// Creates a manifest with a top-level entry point (a tab); the initializer above stays for plugins built
    /// before tabs existed.
    public init(
        id: String, version: Int, displayName: String, routes: [RouteDeclaration],
        requirements: [Requirement] = [], provides: [Provision] = [], hasMocks: Bool = false, tab: TabDeclaration?
    ) {
        self.init(
            id: id, version: version, displayName: displayName, routes: routes, requirements: requirements,
            provides: provides, hasMocks: hasMocks)
        self.tab = tab
    }

    /// Creates a manifest that declares capabilities (SDK 1.1); the initializers above stay for older plugins.
    public init(
        id: String, version: Int, displayName: String, routes: [RouteDeclaration],
        requirements: [Requirement] = [], provides: [Provision] = [], hasMocks: Bool = false,
        tab: TabDeclaration? = nil,
        capabilities: [Capability]
    ) {
        self.init(
            id: id, version: version, displayName: displayName, routes: routes, requirements: requirements,
            provides: provides, hasMocks: hasMocks, tab: tab)
        self.capabilities = capabilities
    }
}

/// A feature's top-level entry point: the host shows it as a tab (title, the route it opens, its place).
public struct TabDeclaration: Codable, Sendable, Equatable {
    /// The tab's label (`Characters`).
    public var title: String
    /// The route the tab opens: one of the feature's routes, without parameters (`characters://list`).
    public var route: String
    /// Where the tab stands among the app's tabs: lower first, ties by title.
    public var order: Int

    /// Declares a tab.
    public init(title: String, route: String, order: Int) {
        self.title = title
        self.route = route
        self.order = order
    }
}

/// One URL pattern a feature answers, such as `characters://detail/{id}`.
public struct RouteDeclaration: Codable, Sendable, Equatable {
    /// The pattern: `scheme://segment/{parameter}`; by convention the scheme is the feature id.
    public var pattern: String
    /// When true, the host sends a signed-out person to sign-in first and comes back here afterwards.
    public var requiresSession: Bool
    /// When true, this is where the host sends people who must sign in (at most one route in the app).
    public var isSignIn: Bool

    /// Declares a route.
    public init(_ pattern: String, requiresSession: Bool = false, isSignIn: Bool = false) {
        self.pattern = pattern
        self.requiresSession = requiresSession
        self.isSignIn = isSignIn
    }
}

/// How a feature may use a dependency.
@frozen public enum Access: String, Codable, Sendable, Equatable, Comparable {
    /// Call a service or observe a value.
    case read
    /// Also change a shared value (its single owner).
    case readWrite

    /// `read` < `readWrite`: a grant satisfies any request at or below it.
    public static func < (lhs: Access, rhs: Access) -> Bool { lhs == .read && rhs == .readWrite }
}

/// Whether a dependency is a callable service or a shared, observable value.
@frozen public enum DependencyKind: String, Codable, Sendable, Equatable {
    /// An async request/response service (`Service<Request, Response>`).
    case service
    /// A shared value behind `ObservableProperty` / `ObservableValue`.
    case state
}

/// One dependency a feature needs, as written in its manifest.
public struct Requirement: Codable, Sendable, Equatable {
    /// The key's string id (`session`, `characters.page`).
    public var key: String
    /// The Swift type name of the value (`Optional<Session>`, `Service<PageRequest, CharacterPage>`).
    public var type: String
    /// Service or state.
    public var kind: DependencyKind
    /// Read or read-write.
    public var access: Access
    /// An optional requirement may be missing; the feature then runs without it.
    public var isOptional: Bool
    /// The value's `TypeShape` in text form; nil in manifests of plugins built before shapes were written.
    public var shape: String?

    /// Describes the requirement that `key` stands for.
    public init<Value>(_ key: DependencyKey<Value>) {
        self.key = key.id
        self.type = key.typeName
        self.kind = key.kind
        self.access = key.access
        self.isOptional = key.isOptional
        self.shape = key.shape.description
    }
}

/// One service a feature provides to others, as written in its manifest.
public struct Provision: Codable, Sendable, Equatable {
    /// The key's string id.
    public var key: String
    /// The Swift type name of the provided value.
    public var type: String
    /// Ids of this feature's requirements the provided service needs (used to find cycles).
    public var uses: [String]
    /// The service's `TypeShape` in text form; nil in manifests of plugins built before shapes were written.
    public var shape: String?
    /// One line saying what the service does (the key's `summary`); absent in manifests of older plugins.
    public var summary: String?

    /// Describes the service `key` stands for, built from the requirements named in `uses`.
    public init<Value>(_ key: DependencyKey<Value>, uses: [String] = []) {
        self.key = key.id
        self.type = key.typeName
        self.uses = uses
        self.shape = key.shape.description
        self.summary = key.summary
    }
}
