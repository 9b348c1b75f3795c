import MicroappSDK
import Synchronization

/// Something the container can hand to features, and who put it there.
public struct Offer: Sendable, Equatable {
    /// The key id.
    public var key: String
    /// The Swift type name of the value (compared with requirements' `type`).
    public var type: String
    /// Service or state.
    public var kind: DependencyKind
    /// The most a feature may do with it.
    public var access: Access
    /// `host`, or the id of the feature that provides it.
    public var provider: String
    /// One line saying what it is (the key's `summary`), nil when its declaration gives none.
    public var summary: String?
    /// The value's `TypeShape` in text form (compared with requirements' `shape`); nil when unknown.
    public var shape: String?

    /// Describes an offer.
    public init(
        key: String, type: String, kind: DependencyKind, access: Access, provider: String, summary: String? = nil,
        shape: String? = nil
    ) {
        self.key = key
        self.type = type
        self.kind = kind
        self.access = access
        self.provider = provider
        self.summary = summary
        self.shape = shape
    }
}

/// The host's container: services and shared state under string keys, handed to features as their
/// declared requirements allow. Filled once in the composition root, then by features that provide services.
@MainActor
public final class Container: DependencySource {
    private var values: [String: Any] = [:]
    /// How each piece of shared state is granted to a feature, by the access it gets.
    private var grants: [String: (Access) -> StateGrant] = [:]
    /// The current implementation of each service a feature provides.
    private var slots: [String: ServiceSlot] = [:]
    /// What is on offer, by key id.
    package private(set) var offers: [String: Offer] = [:]

    /// An empty container.
    public init() {}

    /// The provider name of the services a feature's mocks put in a solo container.
    public nonisolated static let mocks = "mocks"

    /// Offers a service under `key`.
    public func provide<S: ServiceProtocol>(_ key: DependencyKey<S>, _ service: S, by provider: String = "host") {
        provide(
            key.id, type: key.typeName, service: service.erased, by: provider, summary: key.summary,
            shape: key.shape.description)
    }

    /// Offers a service in its byte-level form (services provided by plugins arrive this way). A feature's service
    /// is handed out through a slot: when the feature provides it again (a hot swap, a rollback), features that
    /// already hold it call the new code from then on.
    /// A feature's service does not replace a mock: in solo the mocks stand in for every provider, the
    /// running feature's own included, so `--mock KEY=VARIANT` decides what a feature that provides and needs a
    /// service gets, also after a swap.
    package func provide(
        _ key: String, type: String, service: ErasedService, by provider: String, summary: String? = nil,
        shape: String? = nil
    ) {
        if offers[key]?.provider == Self.mocks && ![Self.mocks, "host"].contains(provider) { return }
        if provider != "host" {
            if let slot = slots[key], offers[key]?.provider == provider, offers[key]?.type == type {
                slot.current.withLock { $0 = service }
                return
            }
            let slot = ServiceSlot(service)
            slots[key] = slot
            values[key] = ErasedService { request in try await slot.current.withLock { $0 }.call(request) }
        } else {
            slots[key] = nil
            values[key] = service
        }
        offers[key] = Offer(
            key: key, type: type, kind: .service, access: .read, provider: provider, summary: summary, shape: shape)
    }

    /// Shares state under `key`; `access` is the most any feature may get (`read` keeps everyone read-only). The
    /// host keeps `property`; features get grants that carry its value as JSON, never the property itself.
    public func share<V: Codable>(
        _ key: DependencyKey<V>, _ property: ObservableProperty<V>, access: Access = .readWrite
    ) {
        values[key.id] = property
        grants[key.id] = { StateGrant(property, access: $0) }
        offers[key.id] = Offer(
            key: key.id, type: key.typeName, kind: .state, access: access, provider: "host", summary: key.summary,
            shape: key.shape.description)
    }

    /// The shared state under `key`, for the host's own use (guards, header).
    public func property<V>(_ key: DependencyKey<V>) -> ObservableProperty<V>? {
        values[key.id] as? ObservableProperty<V>
    }

    /// The value for a requirement: a service, or a grant of state that is read-only unless read-write is both
    /// asked and offered.
    public func value(for requirement: Requirement) -> Any? {
        guard let offer = offers[requirement.key], let value = values[requirement.key] else { return nil }
        guard offer.type == requirement.type, offer.kind == requirement.kind else { return nil }
        guard offer.kind == .state else { return value }
        return grants[requirement.key]?(min(requirement.access, offer.access))
    }
}

/// Where the current implementation of a feature's service lives; callers go through it on every call.
private final class ServiceSlot: Sendable {
    let current: Mutex<ErasedService>

    init(_ service: ErasedService) { current = Mutex(service) }
}
