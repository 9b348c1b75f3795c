/// Stand-ins for a feature's requirements, shipped beside the feature so it can run alone (`microapp solo`)
/// and be previewed. A service may have several named variants (`default`, `empty`, `slow`, `failing`, …).
///
/// ```swift
/// extension CharactersFeature {
///     @MainActor public static func mocks() -> Mocks {
///         var mocks = Mocks()
///         mocks.service(CharactersKeys.page, .mock)                                  // the default
///         mocks.service(CharactersKeys.page, variant: "failing", .mockUnavailable)   // --mock characters.page=failing
///         mocks.state(CharactersKeys.session, MockCharacters.session)                // signed in when run alone
///         return mocks
///     }
/// }
/// ```
@MainActor
public struct Mocks {
    /// One mocked service: its variants by name, in their byte-level form.
    public struct ServiceMock {
        /// The key's type name, checked like a real provider's.
        public let type: String
        /// The key's shape in text form, checked like a real provider's.
        public let shape: String
        /// Variants by name; `default` is used unless another is chosen.
        public fileprivate(set) var variants: [String: ErasedService]
    }

    /// Mocked services by key id.
    public private(set) var services: [String: ServiceMock] = [:]
    /// Mocked shared state by key id: the state itself and its type name.
    public private(set) var states: [String: (type: String, property: Any)] = [:]
    private var grants: [String: (Access) -> StateGrant] = [:]

    /// No mocks yet.
    public init() {}

    /// Adds a variant of the service behind `key` (`default` unless named).
    public mutating func service<S: ServiceProtocol>(_ key: DependencyKey<S>, variant: String = "default", _ service: S)
    {
        services[key.id, default: ServiceMock(type: key.typeName, shape: key.shape.description, variants: [:])]
            .variants[variant] = service.erased
    }

    /// Adds shared state for `key` with a first value (e.g. a signed-in session).
    public mutating func state<V: Codable>(_ key: DependencyKey<V>, _ initial: V) {
        let property = ObservableProperty(initial)
        states[key.id] = (key.typeName, property)
        grants[key.id] = { StateGrant(property, access: $0) }
    }

    /// The mocked state behind `key` as a feature asking for `access` gets it; nil when it is not mocked.
    public func grant(_ key: String, access: Access) -> StateGrant? { grants[key]?(access) }

    /// Ids of the requirements of `manifest` that have no mock; empty when the feature can run alone.
    public func unmocked(in manifest: FeatureManifest) -> [String] {
        manifest.requirements.map(\.key).filter { services[$0] == nil && states[$0] == nil }
    }
}
