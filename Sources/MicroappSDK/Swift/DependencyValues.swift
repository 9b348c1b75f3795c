/// The dependencies a Root driven without the host gets, by key id: a feature's own mocks, or the services and
/// state a test hands it (`RootDriver`).
///
/// ```swift
/// let dependencies = DependencyValues()
///     .provide(SettingsKeys.signOut, Service { _ in Nothing() })
///     .share(SettingsKeys.session, ObservableProperty<Session?>(MockSettings.session), access: .read)
/// ```
@MainActor
public final class DependencyValues: DependencySource {
    private var values: [String: Any] = [:]
    private var grants: [String: (Access) -> StateGrant?] = [:]

    /// An empty set of dependencies; add to it with `provide` and `share`.
    public init() {}

    /// The stand-ins a feature ships (`F.mocks()`), each service in its `default` variant unless `choices` names
    /// another by key id (`["characters.page": "failing"]`); each piece of state shared read-write. Throws when a
    /// choice names a key or variant the mocks do not have.
    public convenience init(_ mocks: Mocks, choosing choices: [String: String] = [:]) throws(MockChoiceError) {
        self.init()
        for (id, chosen) in try mocks.chosenServices(choices) { values[id] = chosen.service }
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
