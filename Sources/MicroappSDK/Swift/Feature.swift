/// A feature module: its manifest, how to make its Root, and what it provides to others.
/// A plugin exports one with a single line: `@_cdecl("microapp_entry") public func entry() -> UnsafeRawPointer? { MicroappEntry.export(MyFeature.self) }`.
///
/// The manifest is what the host reads before any of the feature's code runs (id, routes, requirements, what
/// it provides); `makeRoot` is called once the host has met every requirement. `mocks()` and `previews()` let
/// the feature run alone (`microapp solo`) and be drawn without the app (`microapp preview`).
///
/// ```swift
/// public enum ProfileFeature: Feature {
///     static let greeting = DependencyKey<Service<GreetingRequest, Greeting>>.service("profile.greeting")
///
///     public static let manifest = FeatureManifest(
///         id: "profile", version: 1, displayName: "Profile", routes: [RouteDeclaration("profile://home")],
///         requirements: [greeting.requirement], hasMocks: true)
///
///     @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
///         ProfileRoot(greet: try context.service(greeting), invalidate: { context.invalidate() })
///     }
/// }
/// ```
public protocol Feature {
    /// What the host reads before running any of the feature's code.
    static var manifest: FeatureManifest { get }
    /// Makes the feature's live Root once its requirements are met.
    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root
    /// The services this feature offers to others (declared in `manifest.provides`).
    @MainActor static func provide(_ context: FeatureContext) throws -> Provisions
    /// Stand-ins for every requirement, so the feature runs alone (`microapp solo`) and in previews.
    @MainActor static func mocks() -> Mocks
    /// Each screen in each state it really shows, drawn without the app (`microapp preview`, golden tests).
    @MainActor static func previews() async throws -> [ScreenPreview]
}

extension Feature {
    /// By default a feature provides nothing.
    @MainActor public static func provide(_ context: FeatureContext) throws -> Provisions { Provisions() }
    /// By default a feature ships no mocks.
    @MainActor public static func mocks() -> Mocks { Mocks() }
    /// By default a feature has no previews.
    @MainActor public static func previews() async throws -> [ScreenPreview] { [] }
}

/// The services a feature hands to the host's container.
public struct Provisions: Sendable {
    /// Services by key id, in their byte-level form.
    public private(set) var services: [String: ErasedService] = [:]

    /// No services yet.
    public init() {}

    /// Adds the service for `key`.
    public mutating func add<S: ServiceProtocol>(_ key: DependencyKey<S>, _ service: S) {
        services[key.id] = service.erased
    }
}

/// Where a feature's dependencies come from; implemented by the host's container (or a test's fake).
@MainActor
public protocol DependencySource: AnyObject {
    /// The value for a requirement: an `ErasedService` for a service, a `StateGrant` (read-write only when both
    /// asked and granted) for state; nil when nothing provides it.
    func value(for requirement: Requirement) -> Any?
}

/// Everything the host hands a feature: its dependencies, navigation, and a way to ask for a redraw.
@MainActor
public final class FeatureContext {
    /// The manifest of the feature this context belongs to.
    public let manifest: FeatureManifest
    /// The host's back stack.
    public let navigation: any NavigationHost
    /// The clock the feature waits on (debounces, delays): continuous in the app, a test's or a preview's own
    /// clock elsewhere.
    public let clock: any Clock<Duration>
    private let source: any DependencySource
    private let onInvalidate: () -> Void

    /// Made by the host (or MicroappTesting) for one feature.
    public init(
        manifest: FeatureManifest, source: any DependencySource, navigation: any NavigationHost,
        invalidate: @escaping () -> Void, clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.manifest = manifest
        self.source = source
        self.navigation = navigation
        self.clock = clock
        self.onInvalidate = invalidate
    }

    /// A navigator over the feature's own route type.
    public func navigator<Route: FeatureRoute>(_ routes: Route.Type = Route.self) -> Navigator<Route> {
        Navigator(navigation)
    }

    /// Tells the host the screen changed (after async work finishes); the host redraws at the next frame.
    public func invalidate() { onInvalidate() }

    /// The service behind `key`.
    public func service<S: ServiceProtocol>(_ key: DependencyKey<S>) throws(DependencyError) -> S {
        let value = try lookup(key)
        guard let erased = value as? ErasedService else { throw mismatch(key, found: value) }
        return S(erased: erased)
    }

    /// A read-only copy of the shared state behind `key`, following the host's changes.
    public func value<V: Codable>(_ key: DependencyKey<V>) throws(DependencyError) -> ObservableValue<V> {
        let grant = try stateGrant(key)
        guard let value = grant.value(as: V.self) else { throw unreadable(key) }
        return value
    }

    /// The shared state behind `key` to write: the key must be declared read-write and the host must grant it (to
    /// the state's one owner). Writes reach the host and every reader.
    public func property<V: Codable>(_ key: DependencyKey<V>) throws(DependencyError) -> ObservableProperty<V> {
        guard key.access == .readWrite else {
            throw DependencyError(
                key: key.id, reason: "it is declared with read access, so it cannot be written",
                fix: "declare the key with `.state(\"\(key.id)\", access: .readWrite)` in the manifest")
        }
        let grant = try stateGrant(key)
        guard grant.access == .readWrite else {
            throw DependencyError(
                key: key.id, reason: "the host granted read access only",
                fix: "ask for read access, or have the host share it read-write")
        }
        guard let property = grant.property(as: V.self) else { throw unreadable(key) }
        return property
    }

    private func stateGrant<V>(_ key: DependencyKey<V>) throws(DependencyError) -> StateGrant {
        let value = try lookup(key)
        guard let grant = value as? StateGrant else { throw mismatch(key, found: value) }
        return grant
    }

    private func unreadable<V>(_ key: DependencyKey<V>) -> DependencyError {
        DependencyError(
            key: key.id, reason: "the host's value does not decode as \(key.typeName) (shape \(key.shape))",
            fix:
                "declare the state with the shape the host shares (`microapp graph --format json` shows shapes) and rebuild"
        )
    }

    private func lookup<V>(_ key: DependencyKey<V>) throws(DependencyError) -> Any {
        let requirement = key.requirement
        guard manifest.requirements.contains(requirement) else {
            throw DependencyError(
                key: key.id, reason: "feature '\(manifest.id)' did not declare it in its manifest",
                fix: "add `\(key.id)` to the manifest's requirements with the same type and access")
        }
        guard let value = source.value(for: requirement) else {
            throw DependencyError(
                key: key.id, reason: "nothing provides it",
                fix: "register it in the host's container, or load the feature that provides it")
        }
        return value
    }

    private func mismatch<V>(_ key: DependencyKey<V>, found: Any) -> DependencyError {
        DependencyError(
            key: key.id, reason: "expected \(key.typeName) but the host holds \(type(of: found))",
            fix: "make the provider and the requirement agree on the type")
    }
}
