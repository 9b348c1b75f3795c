import MicroappSDK

extension Mocks {
    /// The requirements of `manifest` that are neither optional nor mocked: the feature cannot run alone.
    public func missing(in manifest: FeatureManifest) -> [Requirement] {
        let unmocked = Set(unmocked(in: manifest))
        return manifest.requirements.filter { !$0.isOptional && unmocked.contains($0.key) }
    }
}

extension Container {
    /// A container holding a feature's mocks, the composition root of solo: each service in the variant
    /// `choices` names for its key (`default` otherwise, by the SDK's one rule), each piece of state shared
    /// read-write.
    public static func mocked(_ mocks: Mocks, choices: [String: String] = [:]) throws(MockChoiceError) -> Container {
        let container = Container()
        for (key, chosen) in try mocks.chosenServices(choices).sorted(by: { $0.key < $1.key }) {
            container.provide(key, type: chosen.type, service: chosen.service, by: Container.mocks, shape: chosen.shape)
        }
        for (key, state) in mocks.states {
            (state.property as? any SharableState)?.share(in: container, key: key)
        }
        return container
    }
}

/// Shared state the container can take without knowing its value type at the call site.
@MainActor
protocol SharableState {
    /// Shares this state read-write under `key`.
    func share(in container: Container, key: String)
}

extension ObservableProperty: SharableState where Value: Codable {
    func share(in container: Container, key: String) {
        container.share(DependencyKey<Value>.state(key, access: .readWrite), self)
    }
}

extension Problem {
    /// A requirement of feature `id` (Swift type `typeName`) with no mock: which key, and how to ship the mock beside
    /// the feature.
    package static func unmocked(_ requirement: Requirement, feature id: String, typeName: String) -> Problem {
        let add =
            requirement.kind == .service
            ? "mocks.service(<the DependencyKey '\(requirement.key)'>, Service { request in … })"
            : "mocks.state(<the DependencyKey '\(requirement.key)'>, <its first value>)"
        return Problem(
            .missingRequirement, subject: id,
            reason:
                "it needs \(requirement.key) (\(requirement.kind.rawValue) \(requirement.type)) and ships no mock for it",
            fix:
                "add the mock beside the feature: `extension \(typeName) { @MainActor public static func mocks() -> Mocks { var mocks = Mocks(); \(add); return mocks } }`"
        )
    }
}
