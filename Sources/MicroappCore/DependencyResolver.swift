import MicroappSDK

/// A feature that loaded and may be started, as the resolver sees it.
public struct Candidate: Sendable {
    /// Its manifest.
    public var manifest: FeatureManifest
    /// The file it came from (for messages).
    public var path: String
    /// How far the host trusts its library (what it may be granted, how its screens are marked).
    public var trust: FeatureTrust
    /// Whether it runs in a sandboxed child, which has only the capabilities the policy grants (in the app's process
    /// a feature has every right of the app).
    public var sandboxed: Bool

    /// Creates a candidate; `trust` has no default, so that no load path forgets to say it.
    public init(manifest: FeatureManifest, path: String, trust: FeatureTrust, sandboxed: Bool = false) {
        self.manifest = manifest
        self.path = path
        self.trust = trust
        self.sandboxed = sandboxed
    }
}

/// What the resolver decided about a plugin set.
public struct Resolution: Sendable {
    /// Features that can start, providers before the features that use them.
    public var startOrder: [String]
    /// Every problem found, each naming its feature or file, with its chain and fix.
    public var problems: [Problem]
    /// Features that will not start, with the first reason.
    public var disabled: [String: Problem]
    /// The verdict on each requirement of each feature, by feature id, in manifest order.
    public var requirements: [String: [RequirementStatus]] = [:]
    /// What does not stop a feature but should be looked at (a capability granted beyond the policy).
    public var warnings: [Problem] = []
    /// What each feature may be handed (the runtime asks it before giving a value); nil: not checked.
    public var grants: GrantTable?
    /// How far the host trusts each feature, by id (the first library of an id), as the grant table holds it.
    public var trust: [String: FeatureTrust] { grants?.trust ?? [:] }
}

/// Checks a whole plugin set against the host's container before anything starts: duplicate ids, route
/// conflicts, missing or mistyped requirements, wrong access, duplicate providers and cycles. Reports all problems
/// at once and keeps every feature that is sound.
public enum DependencyResolver {
    /// Resolves `candidates` (in load order) against what the host offers, under the host's `rules`.
    public static func resolve(
        _ candidates: [Candidate], hostOffers: [String: Offer], rules: ResolutionRules = ResolutionRules()
    ) -> Resolution {
        var problems: [Problem] = []
        var disabled: [String: Problem] = [:]
        func disable(_ id: String, _ problem: Problem) {
            problems.append(problem)
            if disabled[id] == nil { disabled[id] = problem }
        }

        let features = uniqueFeatures(candidates, problems: &problems)
        let review = rules.capabilities.review(
            features.map(\.manifest), sandboxed: Set(features.filter(\.sandboxed).map(\.manifest.id)))
        for (id, problem) in review.refused.sorted(by: { $0.key < $1.key }) { disable(id, problem) }
        // A feature refused for its capabilities claims no routes, sign-in or state from the others.
        let routes = RouteReading()
        let admitted = checkOrigin(
            features.filter { review.refused[$0.manifest.id] == nil }, rules: rules, routes: routes, disable: disable)
        checkRoutes(admitted, routes: routes, disable: disable)
        checkSignIn(admitted, owner: rules.signInFeature, disable: disable)
        checkOwners(admitted, owners: rules.stateOwners, disable: disable)
        let offers = collectOffers(features, hostOffers: hostOffers, disable: disable)
        let grants = checkGrants(
            features, offers: offers, rules: rules, isDisabled: { disabled[$0] != nil }, disable: disable,
            report: { problems.append($0) })

        // Requirements against offers; a provider that is itself disabled is reported in the fixpoint below.
        for feature in features where disabled[feature.manifest.id] == nil {
            for requirement in feature.manifest.requirements {
                if let problem = check(requirement, of: feature, against: offers[requirement.key]) {
                    disable(feature.manifest.id, problem)
                }
            }
        }
        let cycles = findCycles(features, offers: offers)
        for cycle in cycles {
            let chain = describe(cycle, features: features)
            for id in cycle.map(\.feature) where disabled[id] == nil {
                disable(
                    id,
                    Problem(
                        .cycle, subject: id, reason: "its services depend on each other in a cycle: \(chain)",
                        fix: "break the cycle: move one service to the host, or make one requirement optional"))
            }
        }
        // A feature whose required provider is disabled cannot start either; repeat until nothing changes.
        var changed = true
        while changed {
            changed = false
            for feature in features where disabled[feature.manifest.id] == nil {
                for requirement in feature.manifest.requirements where !requirement.isOptional {
                    guard let offer = offers[requirement.key], let reason = disabled[offer.provider] else { continue }
                    disable(
                        feature.manifest.id,
                        Problem(
                            .providerDisabled, subject: feature.manifest.id,
                            reason:
                                "\(feature.manifest.id) needs \(requirement.key) (\(requirement.access.rawValue)) ← provided by \(offer.provider), which is disabled (\(reason.code.rawValue): \(reason.reason))",
                            fix: "fix \(offer.provider) first: \(reason.fix)"))
                    changed = true
                    break
                }
            }
        }
        let sound = features.filter { disabled[$0.manifest.id] == nil }
        var resolution = Resolution(
            startOrder: startOrder(sound, offers: offers), problems: problems, disabled: disabled,
            requirements: requirementStatuses(
                features, offers: offers, cycleEdges: Set(cycles.joined().map { [$0.feature, $0.key] }),
                disabled: disabled), warnings: review.warnings)
        resolution.grants = grants
        annotateGrants(&resolution.requirements, table: grants)
        return resolution
    }

    /// The first feature with an id wins; later ones are refused, naming both files.
    private static func uniqueFeatures(_ candidates: [Candidate], problems: inout [Problem]) -> [Candidate] {
        var seen: [String: Candidate] = [:]
        var unique: [Candidate] = []
        for candidate in candidates {
            if let first = seen[candidate.manifest.id] {
                problems.append(
                    Problem(
                        .duplicateFeature, subject: candidate.path,
                        reason: "feature id '\(candidate.manifest.id)' is already taken by \(first.path)",
                        fix: "load only one of the two libraries, or give one of them another id"))
                continue
            }
            seen[candidate.manifest.id] = candidate
            unique.append(candidate)
        }
        return unique
    }

    /// Claims every route in turn and disables the features whose routes conflict; returns the claims (their
    /// `steps` tell tests how much work the check did).
    @discardableResult
    static func checkRoutes(
        _ features: [Candidate], routes: RouteReading = RouteReading(), disable: (String, Problem) -> Void
    ) -> RouteClaims {
        var claimed = RouteClaims()
        // Routes in a feature's own scheme are claimed first, so a library that claims another feature's route
        // is the one refused, whatever the load order.
        let ownScheme = { (feature: Candidate, route: RouteDeclaration) in
            route.pattern.hasPrefix(feature.manifest.id + "://")
        }
        let claims =
            features.flatMap { feature in
                feature.manifest.routes.filter { ownScheme(feature, $0) }.map { (feature, $0) }
            }
            + features.flatMap { feature in
                feature.manifest.routes.filter { !ownScheme(feature, $0) }.map { (feature, $0) }
            }
        for (feature, route) in claims {
            let id = feature.manifest.id
            do {
                let pattern = try routes.pattern(route.pattern).get()
                // Inside one feature the more literal pattern wins (`detail/new` over `detail/{id}`); two patterns
                // as specific as each other, or any overlap between features, would be a coin toss.
                if let other = claimed.firstConflict(with: pattern, owner: id) {
                    disable(
                        id,
                        Problem(
                            .routeConflict, subject: feature.path,
                            reason:
                                "route '\(route.pattern)' of \(id) conflicts with '\(other.pattern)' of \(other.owner)",
                            fix: "give each route a distinct literal segment, or load only one of the two features"))
                } else {
                    claimed.claim(pattern, owner: id)
                }
            } catch {
                disable(
                    id,
                    Problem(
                        .badManifest, subject: feature.path, reason: "route \(error)",
                        fix: "write routes as 'feature://segment/{parameter}'"))
            }
        }
        return claimed
    }

    private static func collectOffers(
        _ features: [Candidate], hostOffers: [String: Offer], disable: (String, Problem) -> Void
    ) -> [String: Offer] {
        var offers = hostOffers
        for feature in features {
            for provision in feature.manifest.provides {
                let offer = Offer(
                    key: provision.key, type: provision.type, kind: .service, access: .read,
                    provider: feature.manifest.id, shape: provision.shape)
                if let existing = offers[provision.key] {
                    // In solo the mocks stand in for every provider, the feature's own included.
                    if existing.provider == Container.mocks { continue }
                    disable(
                        feature.manifest.id,
                        Problem(
                            .duplicateProvider, subject: feature.manifest.id,
                            reason:
                                "\(feature.manifest.id) provides \(provision.key), which \(existing.provider) already provides",
                            fix: "keep one provider of '\(provision.key)'; remove it from the other's manifest"))
                    continue
                }
                offers[provision.key] = offer
            }
        }
        return offers
    }

    static func check(_ requirement: Requirement, of feature: Candidate, against offer: Offer?) -> Problem? {
        let id = feature.manifest.id
        let need = "\(id) needs \(requirement.key) (\(requirement.access.rawValue), \(requirement.type))"
        guard let offer else {
            if requirement.isOptional { return nil }
            return Problem(
                .missingRequirement, subject: id, reason: "\(need) ← provided by nobody",
                fix:
                    "register '\(requirement.key)' in the host's container, load a feature that provides it, or mark the requirement optional"
            )
        }
        guard offer.type == requirement.type, offer.kind == requirement.kind else {
            return Problem(
                .wrongType, subject: id,
                reason: "\(need) ← \(offer.provider) provides it as \(offer.kind.rawValue) \(offer.type)",
                fix: "make the requirement and the provider agree on the type of '\(requirement.key)'")
        }
        if let mismatch = shapeMismatch(requirement, offer) {
            return Problem(
                .wrongShape, subject: id,
                reason: "\(id) needs \(requirement.key) (\(requirement.kind.rawValue)) \(mismatch)",
                fix:
                    "rebuild \(id) against the contracts \(offer.provider) was built with (or the other way round) so both sides agree on the JSON of '\(requirement.key)'"
            )
        }
        guard requirement.access <= offer.access else {
            return Problem(
                .wrongAccess, subject: id,
                reason: "\(need) ← \(offer.provider) shares it read-only",
                fix: "ask for read access, or share '\(requirement.key)' read-write (only its one owner should write)")
        }
        return nil
    }

    /// Why the JSON of `requirement` and `offer` do not fit, or nil when they do (or a manifest predates shapes).
    /// Readers decode what the other side writes: a service's provider its callers' requests, callers its
    /// responses; a state's readers the holder's value, and the holder its owner's writes.
    public static func shapeMismatch(_ requirement: Requirement, _ offer: Offer) -> String? {
        guard let needed = requirement.shape, let offered = offer.shape, needed != offered else { return nil }
        let mismatch = "with shape \(needed); \(offer.provider) offers shape \(offered)"
        guard let need = TypeShape(parsing: needed), let have = TypeShape(parsing: offered) else { return mismatch }
        let fits =
            need.accepts(have) && (requirement.access == .read || requirement.kind == .service || have.accepts(need))
        return fits ? nil : mismatch
    }

    /// One step of a dependency chain: `feature` needs `key` from another feature.
    private struct Edge: Equatable {
        var feature: String
        var key: String
        var provider: String
    }

    /// Cycles through plugin-provided services, each as the edges around it.
    private static func findCycles(_ features: [Candidate], offers: [String: Offer]) -> [[Edge]] {
        var edges: [String: [Edge]] = [:]
        for feature in features {
            let id = feature.manifest.id
            edges[id] = feature.manifest.requirements.compactMap { requirement in
                guard let provider = offers[requirement.key]?.provider, provider != "host", provider != id else {
                    return nil
                }
                return Edge(feature: id, key: requirement.key, provider: provider)
            }
        }
        // Depth-first search; meeting a feature that is still on the path closes a cycle.
        var cycles: [[Edge]] = []
        var onPath = Set<String>()
        var done = Set<String>()
        var path: [Edge] = []
        func visit(_ id: String) {
            onPath.insert(id)
            for edge in edges[id] ?? [] {
                if onPath.contains(edge.provider) {
                    let start = path.firstIndex { $0.feature == edge.provider } ?? path.count
                    cycles.append(Array(path[start...]) + [edge])
                } else if !done.contains(edge.provider), edges[edge.provider] != nil {
                    path.append(edge)
                    visit(edge.provider)
                    path.removeLast()
                }
            }
            onPath.remove(id)
            done.insert(id)
        }
        for feature in features where !done.contains(feature.manifest.id) { visit(feature.manifest.id) }
        return cycles
    }

    private static func describe(_ cycle: [Edge], features: [Candidate]) -> String {
        cycle.map { "\($0.feature) needs \($0.key) ← provided by \($0.provider)" }.joined(separator: "; ")
    }

    /// Providers first (depth-first over plugin-provided requirements), otherwise load order.
    private static func startOrder(_ features: [Candidate], offers: [String: Offer]) -> [String] {
        let byID = Dictionary(uniqueKeysWithValues: features.map { ($0.manifest.id, $0) })
        var order: [String] = []
        var placed = Set<String>()
        func place(_ id: String) {
            guard !placed.contains(id), let feature = byID[id] else { return }
            placed.insert(id)
            for requirement in feature.manifest.requirements {
                if let provider = offers[requirement.key]?.provider, provider != id { place(provider) }
            }
            order.append(id)
        }
        for feature in features { place(feature.manifest.id) }
        return order
    }
}
