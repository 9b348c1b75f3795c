import MicroappSDK

/// A fake container for tests: the services and shared state a feature under test gets, by key id.
@MainActor
public final class TestDependencies: DependencySource {
    private var values: [String: Any] = [:]
    private var grants: [String: (Access) -> StateGrant?] = [:]

    /// An empty set of dependencies; add to it with `provide` and `share`.
    public init() {}

    /// The stand-ins a feature ships (`F.mocks()`), each service in its `default` variant unless `variants`
    /// names another by key id (`["characters.page": "failing"]`).
    public convenience init(_ mocks: Mocks, variants: [String: String] = [:]) {
        self.init()
        for (id, mock) in mocks.services { values[id] = mock.variants[variants[id] ?? "default"] }
        for id in mocks.states.keys { grants[id] = { mocks.grant(id, access: $0) } }
    }

    /// Provides `service` for `key`, replacing any earlier one.
    @discardableResult
    public func provide<S: ServiceProtocol>(_ key: DependencyKey<S>, _ service: S) -> Self {
        values[key.id] = service.erased
        return self
    }

    /// Shares `property` for `key`: writable when `access` is read-write (and the feature asks for it), as a
    /// read-only copy otherwise.
    @discardableResult
    public func share<V: Codable>(_ key: DependencyKey<V>, _ property: ObservableProperty<V>, access: Access) -> Self {
        grants[key.id] = { StateGrant(property, access: min($0, access)) }
        return self
    }

    /// The value registered under the requirement's key; the feature's context checks its type.
    public func value(for requirement: Requirement) -> Any? {
        values[requirement.key] ?? grants[requirement.key]?(requirement.access)
    }
}
