import MicroappSDK

// What only one feature of a plugin set may have: write access to a piece of shared state (its one owner), and the
// route people are sent to sign in. Two claimants would make the load order (file names) decide who wins, so every
// claimant is refused, each message naming the others; the fix is to load one of them. When the host names the owner
// (`ResolutionRules`), only the others are refused: a stray library cannot take the session from Auth.
extension DependencyResolver {
    /// Disables every feature that claims read-write access to state another feature also claims read-write; when
    /// `owners` names the key's owner and it is among them, only the others.
    static func checkOwners(
        _ features: [Candidate], owners: [String: String], disable: (String, Diagnostic) -> Void
    ) {
        var claimants: [String: [String]] = [:]
        for feature in features {
            for requirement in feature.manifest.requirements
            where requirement.kind == .state && requirement.access == .readWrite {
                claimants[requirement.key, default: []].append(feature.manifest.id)
            }
        }
        for (key, ids) in claimants.sorted(by: { $0.key < $1.key }) where ids.count > 1 {
            if let owner = owners[key], ids.contains(owner) {
                refuseOthers(
                    of: owner, among: ids, code: .secondOwner,
                    reason: { "\($0) claims \(key) read-write, but the host names \(owner) its one owner" },
                    fix: { "have \($0) ask for \(key) with read access, or leave it out" }, disable: disable)
                continue
            }
            refuseEach(
                ids, code: .secondOwner,
                reason: { id, others in
                    "\(id) claims \(key) read-write, and so does \(others): state has one owner, who alone writes it"
                },
                fix: "load only one of \(ids.joined(separator: ", ")), or have all but the owner ask for read access",
                disable: disable)
        }
    }

    /// Disables every feature that declares a sign-in route when more than one route in the set is one; when
    /// `owner` is among them, only the others.
    static func checkSignIn(_ features: [Candidate], owner: String?, disable: (String, Diagnostic) -> Void) {
        let routes = features.flatMap { feature in
            feature.manifest.routes.filter(\.isSignIn).map { (feature.manifest.id, $0.pattern) }
        }
        guard routes.count > 1 else { return }
        let named = routes.map { "\($0.1) of \($0.0)" }
        if let owner, routes.contains(where: { $0.0 == owner }) {
            refuseOthers(
                of: owner, among: routes.map(\.0), code: .secondSignIn,
                reason: { "\($0) declares a sign-in route, but the host sends people to \(owner)'s to sign in" },
                fix: { "remove `isSignIn: true` from \($0)'s routes, or leave \($0) out" }, disable: disable)
            return
        }
        refuseEach(
            routes.map(\.0), code: .secondSignIn,
            reason: { id, _ in
                "\(id) declares a sign-in route, and the set has \(routes.count): \(named.joined(separator: ", ")); the app sends people to one"
            },
            fix: "keep `isSignIn: true` on one route of one feature; load only one sign-in feature", disable: disable)
    }

    /// Refuses every id in `ids` but `owner`, once each.
    private static func refuseOthers(
        of owner: String, among ids: [String], code: Diagnostic.Code, reason: (String) -> String,
        fix: (String) -> String, disable: (String, Diagnostic) -> Void
    ) {
        var seen: Set<String> = [owner]
        for id in ids where seen.insert(id).inserted {
            disable(id, Diagnostic(code, subject: id, reason: reason(id), fix: fix(id)))
        }
    }

    private static func refuseEach(
        _ ids: [String], code: Diagnostic.Code, reason: (String, String) -> String, fix: String,
        disable: (String, Diagnostic) -> Void
    ) {
        var seen = Set<String>()
        for id in ids where seen.insert(id).inserted {
            let others = ids.filter { $0 != id }
            disable(
                id,
                Diagnostic(
                    code, subject: id, reason: reason(id, others.isEmpty ? id : others.joined(separator: " and ")),
                    fix: fix))
        }
    }
}
