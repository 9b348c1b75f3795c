import MicroappSDK

// What only one feature of a plugin set may have: write access to a piece of shared state (its one owner), and the
// route people are sent to sign in. Two claimants would make the load order (file names) decide who wins, so every
// claimant is refused, each message naming the others; the fix is to load one of them. When the host names the owner
// (`ResolutionRules`), every other claimant is refused, alone or not: a stray library cannot take the session or the
// sign-in route from Auth, not even while Auth is not loaded. The named owner is a feature id, which any library may
// say of itself: only a library of the repository's own or pinned by a trusted lock is that owner.
extension DependencyResolver {
    /// Whether `feature` is the owner the host names by `id`: that id, from a library trusted at least as pinned.
    static func isNamedOwner(_ feature: Candidate, _ id: String?) -> Bool {
        feature.manifest.id == id && feature.trust >= .pinned
    }

    /// Disables every feature that claims read-write access to state another feature also claims read-write; when
    /// `owners` names the key's owner and it is among them, only the others.
    static func checkOwners(
        _ features: [Candidate], owners: [String: String], disable: (String, Problem) -> Void
    ) {
        var claimants: [String: [Candidate]] = [:]
        for feature in features {
            for requirement in feature.manifest.requirements
            where requirement.kind == .state && requirement.access == .readWrite {
                claimants[requirement.key, default: []].append(feature)
            }
        }
        for (key, candidates) in claimants.sorted(by: { $0.key < $1.key }) {
            if let owner = owners[key] {
                refuseOthers(
                    of: owner, among: candidates, code: .secondOwner,
                    reason: { "\($0) claims \(key) read-write, but the host names \(owner) its one owner" },
                    fix: { "have \($0) ask for \(key) with read access, or leave it out" }, disable: disable)
                continue
            }
            let ids = candidates.map(\.manifest.id)
            guard ids.count > 1 else { continue }
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
    static func checkSignIn(_ features: [Candidate], owner: String?, disable: (String, Problem) -> Void) {
        let declaring = features.filter { $0.manifest.routes.contains(where: \.isSignIn) }
        let routes = declaring.flatMap { feature in
            feature.manifest.routes.filter(\.isSignIn).map { (feature.manifest.id, $0.pattern) }
        }
        if let owner {
            refuseOthers(
                of: owner, among: declaring, code: .secondSignIn,
                reason: { "\($0) declares a sign-in route, but the host sends people to \(owner)'s to sign in" },
                fix: { "remove `isSignIn: true` from \($0)'s routes, or leave \($0) out" }, disable: disable)
            return
        }
        guard routes.count > 1 else { return }
        let named = routes.map { "\($0.1) of \($0.0)" }
        refuseEach(
            routes.map(\.0), code: .secondSignIn,
            reason: { id, _ in
                "\(id) declares a sign-in route, and the set has \(routes.count): \(named.joined(separator: ", ")); the app sends people to one"
            },
            fix: "keep `isSignIn: true` on one route of one feature; load only one sign-in feature", disable: disable)
    }

    /// Refuses every one of `candidates` but the named `owner` (see `isNamedOwner`), once each; a library that only
    /// says it is the owner's id, untrusted, is told why.
    private static func refuseOthers(
        of owner: String, among candidates: [Candidate], code: Problem.Code, reason: (String) -> String,
        fix: (String) -> String, disable: (String, Problem) -> Void
    ) {
        var seen = Set<String>()
        for candidate in candidates where !isNamedOwner(candidate, owner) {
            let id = candidate.manifest.id
            guard seen.insert(id).inserted else { continue }
            let impostor = id == owner
            disable(
                id,
                Problem(
                    code, subject: impostor ? candidate.path : id,
                    reason: impostor
                        ? "\(reason(id)), and this library is from an untrusted folder: only the repository's own \(owner) or one pinned by a trusted plugins.lock is"
                        : reason(id),
                    fix: impostor ? "pin its folder with `microapp lock DIR` if you trust it, or leave it out" : fix(id)
                ))
        }
    }

    private static func refuseEach(
        _ ids: [String], code: Problem.Code, reason: (String, String) -> String, fix: String,
        disable: (String, Problem) -> Void
    ) {
        var seen = Set<String>()
        for id in ids where seen.insert(id).inserted {
            let others = ids.filter { $0 != id }
            disable(
                id,
                Problem(
                    code, subject: id, reason: reason(id, others.isEmpty ? id : others.joined(separator: " and ")),
                    fix: fix))
        }
    }
}
