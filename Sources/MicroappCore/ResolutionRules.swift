/// What the host decides about a plugin set beyond what its container offers: which capabilities features may
/// declare, who may use each key, and which feature owns a piece of shared state or the sign-in route when more than one claims it.
public struct ResolutionRules: Sendable, Equatable {
    /// The capability policy (`--allow`, `--strict`).
    public var capabilities: CapabilityPolicy
    /// The owner of each state key the host names (`session` → `auth`): another feature claiming it read-write is
    /// refused and the owner keeps running; without an owner named, every claimant is refused.
    public var stateOwners: [String: String]
    /// The feature whose sign-in route the app uses; another feature declaring one is refused.
    public var signInFeature: String?
    /// Route schemes the host keeps for its own features (`auth` → `auth`): any other feature declaring a route there
    /// is refused, even when the owner is not loaded.
    public var reservedSchemes: [String: String]
    /// Names the host keeps for its own features (`Settings` → `settings`): any other feature with that display name
    /// or tab title is refused, even when the owner is not loaded.
    public var reservedNames: [String: String]
    /// Who may use each key the host offers, and what is granted beyond that by name (`--grant`, lock entries).
    public var grants: GrantRules

    /// Rules: by default the lenient capability policy, no owners named, nothing reserved and every key on the
    /// default grant rule.
    public init(
        capabilities: CapabilityPolicy = CapabilityPolicy(), stateOwners: [String: String] = [:],
        signInFeature: String? = nil, reservedSchemes: [String: String] = [:], reservedNames: [String: String] = [:],
        grants: GrantRules = GrantRules()
    ) {
        self.capabilities = capabilities
        self.stateOwners = stateOwners
        self.signInFeature = signInFeature
        self.reservedSchemes = reservedSchemes
        self.reservedNames = reservedNames
        self.grants = grants
    }
}
