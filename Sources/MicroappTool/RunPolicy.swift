import Foundation
import MicroappCore
import MicroappHost
import MicroappPlatform
import MicroappSDK

/// The rules a command runs its plugins under, read once from the command line and the host's configuration:
/// where each feature runs (`--isolation`), which capabilities it may declare (`--allow`, `--strict`), which keys
/// it is granted (`--grant`, the host's grant rules), and which feature owns the session and sign-in.
enum RunPolicy {
    /// `--isolation auto|process|none` (default `auto`).
    static func isolationChoice(_ arguments: Arguments) -> IsolationChoice {
        arguments[CommonOptions.isolation]
    }

    /// The resolver's rules: the capability policy of `--allow` (default `files:scratch`) and `--strict`, the
    /// owners, reserved schemes and names and grant rules `host` names, and `--grant FEATURE=KEY` (its keys are checked
    /// against the offers once they are known: `checkGrantedKeys`).
    static func rules(_ arguments: Arguments, host: HostConfiguration) -> ResolutionRules {
        var grants = GrantRules(keys: host.grants)
        for grant in grantOptions(arguments) { grants.grant(grant.key, to: grant.feature) }
        return ResolutionRules(
            capabilities: capabilities(arguments), stateOwners: host.stateOwners,
            signInFeature: host.signInFeature, reservedSchemes: host.reservedSchemes, reservedNames: host.reservedNames,
            grants: grants)
    }

    /// The capability policy of `--allow` (default `files:scratch`) and `--strict`.
    static func capabilities(_ arguments: Arguments) -> CapabilityPolicy {
        CapabilityPolicy(
            allowed: CapabilityPolicy.defaultAllowed.union(arguments[CommonOptions.allow]),
            strict: arguments[CommonOptions.strict])
    }

    /// Each `--grant FEATURE=KEY`, in order.
    static func grantOptions(_ arguments: Arguments) -> [GrantOption] {
        arguments[CommonOptions.grant].map { GrantOption(feature: $0.key, key: $0.value) }
    }

    /// Refuses a `--grant` whose key nobody offers (`offered`: the host's keys and the loaded features' services):
    /// granting it would do nothing, and a typo would pass unnoticed.
    static func checkGrantedKeys(_ arguments: Arguments, offered: Set<String>) throws(Problem) {
        if let problem = PlacementPolicy.ungranted(grantOptions(arguments), offered: offered) {
            throw problem
        }
    }
}
