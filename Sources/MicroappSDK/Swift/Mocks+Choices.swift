/// A choice of mock variants (key id → variant name) the feature's mocks cannot meet: what was asked, the mocks
/// there are, and what to choose instead.
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

    /// Each mocked service in the variant `choices` names for its key (`default` otherwise), by key id: the one
    /// rule every driver of mocks (previews, tests, `microapp solo`, the probe) follows. Throws, naming the known
    /// keys and variants, when a choice names a key or variant the mocks do not have, or a service has no
    /// `default` and none was chosen.
    public func chosenServices(_ choices: [String: String]) throws(MockChoiceError) -> [String: ChosenService] {
        let list = catalog.joined(separator: "; ")
        for (key, variant) in choices.sorted(by: { $0.key < $1.key }) {
            if states[key] != nil {
                throw MockChoiceError(
                    reason: "\(key)=\(variant): \(key) is shared state, which has one mock and no variants",
                    fix: "choose a variant of a service instead; the mocks are: \(list)")
            }
            guard let mock = services[key] else {
                throw MockChoiceError(
                    reason: "\(key)=\(variant): there is no mock for '\(key)'",
                    fix: "use one of the mocked keys and its variants: \(list)")
            }
            guard mock.variants[variant] != nil else {
                throw MockChoiceError(
                    reason: "\(key)=\(variant): \(key) has no variant '\(variant)'",
                    fix: "use one of: \(mock.variants.keys.sorted().joined(separator: ", "))")
            }
        }
        var chosen: [String: ChosenService] = [:]
        for (key, mock) in services {
            guard let service = mock.variants[choices[key] ?? "default"] else {
                throw MockChoiceError(
                    reason: "\(key) has no `default` mock and no variant was chosen",
                    fix: "choose one of: \(mock.variants.keys.sorted().joined(separator: ", "))")
            }
            chosen[key] = ChosenService(type: mock.type, shape: mock.shape, service: service)
        }
        return chosen
    }

    /// The mocks a run with `choices` uses, keys sorted: `key=variant` for services, the key for state.
    public func inUse(_ choices: [String: String]) -> [String] {
        (services.keys.map { "\($0)=\(choices[$0] ?? "default")" } + states.keys).sorted()
    }
}

/// One mocked service in the variant a run uses.
public struct ChosenService: Sendable {
    /// The key's type name, checked like a real provider's.
    public let type: String
    /// The key's shape in text form, checked like a real provider's.
    public let shape: String
    /// The variant, in its byte-level form.
    public let service: ErasedService
}
