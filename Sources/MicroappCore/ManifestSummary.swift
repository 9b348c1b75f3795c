import MicroappSDK

/// A manifest as the inspect commands' `--json` output shows it: the vocabulary of `routes --json` and
/// `graph --format json` (`optional`, `requiresSession`, `isSignIn`), not the entry ABI's own manifest JSON, which
/// plugins already built keep writing (`isOptional`).
public struct ManifestSummary: Codable, Sendable, Equatable {
    /// One requirement: the manifest's, with `optional` as in the graph's edges.
    public struct Need: Codable, Sendable, Equatable {
        /// The key's string id.
        public var key: String
        /// The Swift type name of the value.
        public var type: String
        /// Service or state.
        public var kind: DependencyKind
        /// Read or read-write.
        public var access: Access
        /// Whether the feature runs without it.
        public var optional: Bool
        /// The JSON structure of the value (`TypeShape` text); absent for plugins built before shapes.
        public var shape: String?
    }

    /// The feature id.
    public var id: String
    /// The feature's version number.
    public var version: Int
    /// The name shown to people.
    public var displayName: String
    /// Its routes, each with `pattern`, `requiresSession` and `isSignIn`.
    public var routes: [RouteDeclaration]
    /// What it needs.
    public var requirements: [Need]
    /// What it offers to others, each with `key`, `type` and `uses`.
    public var provides: [Provision]
    /// Whether it ships mocks for every requirement.
    public var hasMocks: Bool
    /// What it declares it does beyond its requirements (`network`, `files:scratch`).
    public var capabilities: [Capability]
    /// Its tab, when it has one (nil in summaries recorded before tabs were kept).
    public var tab: TabDeclaration?

    /// Summarizes `manifest`.
    public init(_ manifest: FeatureManifest) {
        id = manifest.id
        version = manifest.version
        displayName = manifest.displayName
        routes = manifest.routes
        requirements = manifest.requirements.map {
            Need(
                key: $0.key, type: $0.type, kind: $0.kind, access: $0.access, optional: $0.isOptional, shape: $0.shape)
        }
        provides = manifest.provides
        hasMocks = manifest.hasMocks
        capabilities = manifest.capabilities
        tab = manifest.tab
    }
}
