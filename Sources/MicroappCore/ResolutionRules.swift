/// What the host decides about a plugin set beyond what its container offers: which capabilities features may
/// declare, and which feature owns a piece of shared state or the sign-in route when more than one claims it.
public struct ResolutionRules: Sendable, Equatable {
    /// The capability policy (`--allow`, `--strict`).
    public var capabilities: CapabilityPolicy
    /// The owner of each state key the host names (`session` → `auth`): another feature claiming it read-write is
    /// refused and the owner keeps running; without an owner named, every claimant is refused.
    public var stateOwners: [String: String]
    /// The feature whose sign-in route the app uses; another feature declaring one is refused.
    public var signInFeature: String?

    /// Rules: by default the lenient capability policy and no owners named.
    public init(
        capabilities: CapabilityPolicy = CapabilityPolicy(), stateOwners: [String: String] = [:],
        signInFeature: String? = nil
    ) {
        self.capabilities = capabilities
        self.stateOwners = stateOwners
        self.signInFeature = signInFeature
    }
}
