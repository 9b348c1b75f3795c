import MicroappSDK

/// What the resolver decided about one requirement of one feature: who provides it and whether it is met. `graph`,
/// `doctor` and the runtime read these; none of them judges a requirement with rules of its own.
public struct RequirementStatus: Sendable, Equatable {
    /// Whether the requirement is met, and if not, why.
    public enum State: String, Sendable, Equatable {
        /// A provider offers it with the right type, shape and access.
        case ok
        /// Nobody provides it and the feature cannot start without it.
        case missing
        /// Nobody provides it; the feature starts without it.
        case optionalMissing = "optional-missing"
        /// The provider offers another type or kind.
        case wrongType = "wrong-type"
        /// The provider's value has a JSON structure the feature cannot read (`TypeShape`).
        case wrongShape = "wrong-shape"
        /// The provider shares it with less access than the feature asks for.
        case wrongAccess = "wrong-access"
        /// The provider needs, directly or not, something from this feature.
        case cycle
        /// The provider is a feature that will not start.
        case providerDisabled = "provider-disabled"
        /// Offered, but not to this feature (the key's grant rule, `--grant`, a lock entry's `grants`).
        case notGranted = "not-granted"
    }

    /// The requirement, as the feature's manifest declares it.
    public var requirement: Requirement
    /// `host`, the id of the feature that provides it, or nil when nobody does.
    public var provider: String?
    /// The verdict.
    public var state: State
    /// Whether the feature is granted the key and why; nil when grants were not checked.
    public var grant: GrantVerdict?
}

extension DependencyResolver {
    /// The verdict on every requirement of each of `features`, by feature id, in manifest order. The states come
    /// from the same checks that disable features (`check`, the cycles found, the disabled providers).
    static func requirementStatuses(
        _ features: [Candidate], offers: [String: Offer], cycleEdges: Set<[String]>,
        disabled: [String: Problem]
    ) -> [String: [RequirementStatus]] {
        var statuses: [String: [RequirementStatus]] = [:]
        for feature in features {
            let id = feature.manifest.id
            statuses[id] = feature.manifest.requirements.map { requirement in
                let offer = offers[requirement.key]
                let state: RequirementStatus.State
                switch check(requirement, of: feature, against: offer)?.code {
                case .missingRequirement: state = .missing
                case .wrongType: state = .wrongType
                case .wrongShape: state = .wrongShape
                case .wrongAccess: state = .wrongAccess
                default:
                    if let offer {
                        state =
                            cycleEdges.contains([id, requirement.key])
                            ? .cycle : disabled[offer.provider] != nil ? .providerDisabled : .ok
                    } else {
                        state = .optionalMissing
                    }
                }
                return RequirementStatus(requirement: requirement, provider: offer?.provider, state: state)
            }
        }
        return statuses
    }
}
