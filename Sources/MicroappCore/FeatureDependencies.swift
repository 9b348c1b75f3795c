import MicroappSDK

/// What one feature's context reads its requirements from: the container, and, for a service the feature both
/// provides and needs (a scaffold's greeting, say), the feature's own provision of it.
///
/// A feature's services reach the container only once its Root is made (a version that fails to start hands out
/// nothing), so without this a feature could not consume what it provides. Whatever the container holds from
/// anyone else wins: in solo that is the mocks, so `--mock KEY=VARIANT` still picks the feature's service.
@MainActor
public final class FeatureDependencies: DependencySource {
    private let container: Container
    private let manifest: FeatureManifest
    /// What the feature may be handed; nil hands it whatever the container holds.
    private let grants: GrantTable?
    /// The services this version of the feature provides, by key id, once `provide(_:)` has run.
    public var provided: [String: ErasedService] = [:]

    /// What `manifest`'s feature reads from `container` (and from its own provisions), only as `grants` allow.
    public init(container: Container, manifest: FeatureManifest, grants: GrantTable? = nil) {
        self.container = container
        self.manifest = manifest
        self.grants = grants
    }

    /// The container's value for `requirement`, or the feature's own service when nobody else provides it; nil for
    /// a key the feature was not granted, as if nobody offered it.
    public func value(for requirement: Requirement) -> Any? {
        if let grants, !grants.allows(requirement, to: manifest.id) { return nil }
        if let offer = container.offers[requirement.key], offer.provider != manifest.id {
            return container.value(for: requirement)
        }
        let provision = manifest.provides.first { $0.key == requirement.key }
        if requirement.kind == .service, provision?.type == requirement.type,
            let service = provided[requirement.key]
        {
            return service
        }
        return container.value(for: requirement)
    }
}
