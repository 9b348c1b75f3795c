import Foundation
import MicroappCore
import MicroappPlatform
import MicroappSDK

/// The rules a command runs its plugins under, read once from the command line and the host's configuration:
/// where each feature runs (`--isolation`), which capabilities it may declare (`--allow`, `--strict`), which keys
/// it is granted (`--grant`, the host's grant rules), and which feature owns the session and sign-in.
enum RunPolicy {
    /// `--isolation auto|process|none` (default `auto`).
    static func isolationChoice(_ arguments: Arguments) throws(UsageError) -> IsolationChoice {
        arguments[CommonOptions.isolation]
    }

    /// The resolver's rules: the capability policy of `--allow` (default `files:scratch`) and `--strict`, the
    /// owners, reserved schemes and names and grant rules `host` names, and `--grant FEATURE=KEY` (its keys are checked
    /// against the offers once they are known: `checkGrantedKeys`).
    static func rules(_ arguments: Arguments, host: HostConfiguration) throws(UsageError) -> ResolutionRules {
        var grants = GrantRules(keys: host.grants)
        for (feature, key) in try grantOptions(arguments) { grants.grant(key, to: feature) }
        return ResolutionRules(
            capabilities: try capabilities(arguments), stateOwners: host.stateOwners,
            signInFeature: host.signInFeature, reservedSchemes: host.reservedSchemes, reservedNames: host.reservedNames,
            grants: grants)
    }

    /// The capability policy of `--allow` (default `files:scratch`) and `--strict`.
    static func capabilities(_ arguments: Arguments) throws(UsageError) -> CapabilityPolicy {
        CapabilityPolicy(
            allowed: CapabilityPolicy.defaultAllowed.union(arguments[CommonOptions.allow]),
            strict: arguments[CommonOptions.strict])
    }

    /// Each `--grant FEATURE=KEY`, in order.
    static func grantOptions(_ arguments: Arguments) throws(UsageError) -> [(feature: String, key: String)] {
        arguments[CommonOptions.grant].map { ($0.key, $0.value) }
    }

    /// Refuses a `--grant` whose key nobody offers (`offered`: the host's keys and the loaded features' services):
    /// granting it would do nothing, and a typo would pass unnoticed.
    static func checkGrantedKeys(_ arguments: Arguments, offered: Set<String>) throws(UsageError) {
        for (feature, key) in try grantOptions(arguments) where !offered.contains(key) {
            throw UsageError(
                "--grant \(feature)=\(key): nobody offers '\(key)'",
                fix: "name a key `microapp keys` lists: \(offered.sorted().joined(separator: ", "))")
        }
    }

    /// Where the feature of each library runs, by path: `choice` applied to where the library was found and what its
    /// folder's lock says (`locks`, from the lock check), with "unsandboxed" in the reason when `sandbox` lets an
    /// isolated child run without what this kernel lacks. Decided before any library is opened or started.
    static func decisions(
        for paths: [String], choice: IsolationChoice, locks: (String) -> LibraryTrust.Lock,
        locations: PluginLocations, sandbox: SandboxCheck
    ) -> [String: IsolationDecision] {
        var decisions: [String: IsolationDecision] = [:]
        for path in paths {
            let trust = locations.trust(of: path, lock: locks(path))
            decisions[path] = sandbox.annotated(IsolationDecision.decide(choice, for: trust))
        }
        return decisions
    }

    /// How far the host trusts the library at each of `paths`, from where it was found and what its folder's lock
    /// says (`locks`): the same facts the isolation decision rests on, whatever `--isolation` chose.
    static func trust(
        for paths: [String], locks: (String) -> LibraryTrust.Lock, locations: PluginLocations
    ) -> [String: FeatureTrust] {
        Dictionary(
            uniqueKeysWithValues: paths.map {
                ($0, locations.trust(of: $0, lock: locks($0)).level)
            })
    }
}

extension PluginLocations {
    /// Where the library at `path` was found: the repository's build folder, an installed host's own folder, or a
    /// `--plugins` folder.
    func origin(of path: String) -> LibraryTrust.Origin {
        let folder = URL(fileURLWithPath: (path as NSString).deletingLastPathComponent)
        guard folder.resolvingSymlinksInPath().path == executableDirectory.resolvingSymlinksInPath().path else {
            return .pluginsFolder(folder.path)
        }
        return repository == nil ? .besideHost : .repository
    }

    /// The facts the isolation decision and the library's trust rest on: where `path` was found, and `lock`, what its
    /// folder's lock says.
    func trust(of path: String, lock: LibraryTrust.Lock) -> LibraryTrust {
        LibraryTrust(origin: origin(of: path), lock: lock)
    }
}
