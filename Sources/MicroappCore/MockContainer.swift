import MicroappSDK

/// A `--mock KEY=VARIANT` choice the feature's mocks cannot meet: what was asked and what there is instead.
public struct MockChoiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the choice.
    public var reason: String
    /// What can be chosen instead.
    public var fix: String

    /// Creates an error.
    public init(reason: String, fix: String) {
        self.reason = reason
        self.fix = fix
    }

    /// `reason; to fix: fix`.
    public var description: String { "\(reason); to fix: \(fix)" }
}

extension Mocks {
    /// One line per mock, keys sorted: `characters.page = default | failing` for services, `session (state)`.
    public var catalog: [String] {
        let services = services.map { key, mock in "\(key) = \(mock.variants.keys.sorted().joined(separator: " | "))" }
        let states = states.keys.map { "\($0) (state)" }
        return (services + states).sorted()
    }

    /// The mocks a run with `choices` uses, keys sorted: `key=variant` for services, the key for state.
    public func inUse(_ choices: [String: String]) -> [String] {
        (services.keys.map { "\($0)=\(choices[$0] ?? "default")" } + states.keys).sorted()
    }

    /// The requirements of `manifest` that are neither optional nor mocked: the feature cannot run alone.
    public func missing(in manifest: FeatureManifest) -> [Requirement] {
        let unmocked = Set(unmocked(in: manifest))
        return manifest.requirements.filter { !$0.isOptional && unmocked.contains($0.key) }
    }

    /// Checks `choices` (key id → variant name) against the mocks, naming what exists when one is unknown.
    public func check(_ choices: [String: String]) throws(MockChoiceError) {
        let list = catalog.map { "  " + $0 }.joined(separator: "\n")
        for (key, variant) in choices.sorted(by: { $0.key < $1.key }) {
            if states[key] != nil {
                throw MockChoiceError(
                    reason: "--mock \(key)=\(variant): \(key) is shared state, which has one mock and no variants",
                    fix: "choose a variant of a service instead; the mocks are:\n\(list)")
            }
            guard let mock = services[key] else {
                throw MockChoiceError(
                    reason: "--mock \(key)=\(variant): there is no mock for '\(key)'",
                    fix: "use one of the mocked keys and its variants:\n\(list)")
            }
            guard mock.variants[variant] != nil else {
                throw MockChoiceError(
                    reason: "--mock \(key)=\(variant): \(key) has no variant '\(variant)'",
                    fix: "use one of: \(mock.variants.keys.sorted().joined(separator: ", "))")
            }
        }
    }
}

extension Container {
    /// A container holding a feature's mocks, the composition root of microapp mode: each service in the variant
    /// `choices` names for its key (`default` otherwise), each piece of state shared read-write.
    public static func mocked(_ mocks: Mocks, choices: [String: String] = [:]) throws(MockChoiceError) -> Container {
        try mocks.check(choices)
        let container = Container()
        for (key, mock) in mocks.services.sorted(by: { $0.key < $1.key }) {
            let variant = choices[key] ?? "default"
            guard let service = mock.variants[variant] else {
                throw MockChoiceError(
                    reason: "\(key) has no `default` mock",
                    fix:
                        "choose one with --mock \(key)=VARIANT (\(mock.variants.keys.sorted().joined(separator: ", ")))"
                )
            }
            container.provide(key, type: mock.type, service: service, by: Container.mocks)
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

extension ObservableProperty: SharableState {
    func share(in container: Container, key: String) {
        container.share(DependencyKey<Value>.state(key, access: .readWrite), self)
    }
}
