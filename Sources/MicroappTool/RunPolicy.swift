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
    static func isolationChoice(_ arguments: Arguments) throws(UsageError) -> IsolationChoice {
        guard let text = arguments.value("--isolation") else { return .auto }
        guard let choice = IsolationChoice(rawValue: text) else {
            throw UsageError(
                "--isolation \(text) is not a mode",
                fix: "write --isolation auto (the default), process (every feature in a process of its own) or none")
        }
        return choice
    }

    /// The resolver's rules: the capability policy of `--allow` (default `files:scratch`) and `--strict`, the
    /// owners, reserved schemes and names and grant rules `host` names, and `--grant FEATURE=KEY` (its keys are checked
    /// against the offers once they are known: `checkGrantedKeys`).
    static func rules(_ arguments: Arguments, host: HostConfiguration) throws(UsageError) -> ResolutionRules {
        var grants = GrantRules(keys: host.grants)
        for grant in try grantOptions(arguments) { grants.grant(grant.key, to: grant.feature) }
        return ResolutionRules(
            capabilities: try capabilities(arguments), stateOwners: host.stateOwners,
            signInFeature: host.signInFeature, reservedSchemes: host.reservedSchemes, reservedNames: host.reservedNames,
            grants: grants)
    }

    /// The capability policy of `--allow` (default `files:scratch`) and `--strict`.
    static func capabilities(_ arguments: Arguments) throws(UsageError) -> CapabilityPolicy {
        var allowed = CapabilityPolicy.defaultAllowed
        for name in arguments.values("--allow") {
            let capability = Capability(rawValue: name)
            guard CapabilityPolicy.known.contains(capability) else {
                throw UsageError(
                    "--allow \(name): no capability has that name",
                    fix: "use one of: \(CapabilityPolicy.known.map(\.rawValue).joined(separator: ", "))")
            }
            allowed.insert(capability)
        }
        return CapabilityPolicy(allowed: allowed, strict: arguments.flag("--strict"))
    }

    /// Each `--grant FEATURE=KEY`, in order.
    static func grantOptions(_ arguments: Arguments) throws(UsageError) -> [GrantOption] {
        var grants: [GrantOption] = []
        for value in arguments.values("--grant") {
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw UsageError(
                    "--grant \(value) is not FEATURE=KEY",
                    fix: "write e.g. `--grant myfeature=search.recent` (a feature id, a key `microapp keys` lists)")
            }
            grants.append(GrantOption(feature: parts[0], key: parts[1]))
        }
        return grants
    }

    /// Refuses a `--grant` whose key nobody offers (`offered`: the host's keys and the loaded features' services):
    /// granting it would do nothing, and a typo would pass unnoticed.
    static func checkGrantedKeys(_ arguments: Arguments, offered: Set<String>) throws(UsageError) {
        if let problem = PlacementPolicy.ungranted(try grantOptions(arguments), offered: offered) {
            throw UsageError(problem)
        }
    }
}
