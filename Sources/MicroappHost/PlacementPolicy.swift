import MicroappCore
import MicroappPlatform

/// Where each library's feature runs and how far the host trusts it, decided from facts alone (where it was found,
/// what its folder's lock says, what this kernel's sandbox lacks) before any library is opened or started.
package enum PlacementPolicy {
    /// Where the feature of each library runs, by path: `choice` applied to where the library was found and what its
    /// folder's lock says (`locks`, from the lock check), with "unsandboxed" in the reason when `sandbox` lets an
    /// isolated child run without what this kernel lacks.
    package static func decisions(
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
    package static func trust(
        for paths: [String], locks: (String) -> LibraryTrust.Lock, locations: PluginLocations
    ) -> [String: FeatureTrust] {
        Dictionary(uniqueKeysWithValues: paths.map { ($0, locations.trust(of: $0, lock: locks($0)).level) })
    }

    /// The usage problem of the first `--grant FEATURE=KEY` in `grants` whose key nobody offers (`offered`: the
    /// host's keys and the loaded features' services): granting it would do nothing, and a typo would pass unnoticed.
    package static func ungranted(_ grants: [GrantOption], offered: Set<String>) -> Problem? {
        guard let grant = grants.first(where: { !offered.contains($0.key) }) else { return nil }
        return Problem.usage(
            "--grant \(grant.feature)=\(grant.key): nobody offers '\(grant.key)'",
            fix: "name a key `microapp keys` lists: \(offered.sorted().joined(separator: ", "))")
    }
}

/// One `--grant FEATURE=KEY`: the feature id given the key by name.
package struct GrantOption: Sendable, Equatable {
    /// The feature id.
    package var feature: String
    /// The key granted.
    package var key: String

    /// `feature` granted `key`.
    package init(feature: String, key: String) {
        self.feature = feature
        self.key = key
    }
}
