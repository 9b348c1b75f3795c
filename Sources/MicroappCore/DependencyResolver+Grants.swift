import MicroappSDK

// Services and state are granted, never only offered: each requirement of a feature on a key someone else provides
// passes the key's rule (the host's configuration, or the providing feature's manifest) or an explicit grant. A
// required key not granted keeps the feature from starting; an optional one is withheld (the feature runs without
// it, and the runtime never hands it over). Both are `not-granted` problems, so `--strict` refuses either.
extension DependencyResolver {
    /// Checks every requirement of the `features` not yet disabled against `rules.grants`, disabling those whose
    /// required keys are not granted and reporting withheld optional ones; answers the table the runtime enforces.
    static func checkGrants(
        _ features: [Candidate], offers: [String: Offer], rules: ResolutionRules, isDisabled: (String) -> Bool,
        disable: (String, Problem) -> Void, report: (Problem) -> Void
    ) -> GrantTable {
        let table = grantTable(features, offers: offers, rules: rules)
        for feature in features where !isDisabled(feature.manifest.id) {
            let id = feature.manifest.id
            for requirement in feature.manifest.requirements {
                let verdict = table.verdict(on: requirement, of: id)
                guard !verdict.isGranted else { continue }
                let problem = notGranted(
                    requirement, of: feature, verdict: verdict, offer: offers[requirement.key], table: table)
                if requirement.isOptional {
                    report(problem)
                } else {
                    disable(id, problem)
                    break
                }
            }
        }
        return table
    }

    /// The grant table of a plugin set: the host's rules, who provides each key, how far each feature is trusted.
    static func grantTable(_ features: [Candidate], offers: [String: Offer], rules: ResolutionRules) -> GrantTable {
        GrantTable(
            rules: rules.grants, providers: offers.mapValues(\.provider),
            trust: Dictionary(features.map { ($0.manifest.id, $0.trust) }, uniquingKeysWith: { first, _ in first }))
    }

    /// `not-granted`: the feature, the key, who may use it, and the two ways to grant it.
    private static func notGranted(
        _ requirement: Requirement, of feature: Candidate, verdict: GrantVerdict, offer: Offer?, table: GrantTable
    ) -> Problem {
        let id = feature.manifest.id
        let provider = offer?.provider ?? "host"
        let who = verdict.rule ?? GrantRule.default.summary
        var outcome = requirement.isOptional ? "it runs without it" : "it cannot start"
        if table.rule(of: requirement.key).features.contains(id), feature.trust < GrantRule.namedTrust {
            outcome += " (a feature named by id must be own or pinned: an untrusted library could take any id)"
        }
        return Problem(
            .notGranted, subject: id,
            reason:
                "\(id) (\(feature.trust.rawValue)) needs \(requirement.key) (\(requirement.access.rawValue)) ← \(provider) grants it to: \(who); \(id) was not granted it, so \(outcome)",
            fix:
                "if you trust \(id) with \(requirement.key), run with --grant \(id)=\(requirement.key), or add \"\(requirement.key)\" to the \"grants\" of its entry in a trusted plugins.lock; otherwise leave it out"
        )
    }

    /// Marks each status whose requirement is not granted (`not-granted`), and gives every status its verdict.
    static func annotateGrants(_ statuses: inout [String: [RequirementStatus]], table: GrantTable) {
        for (id, list) in statuses {
            statuses[id] = list.map { status in
                var status = status
                let verdict = table.verdict(on: status.requirement, of: id)
                status.grant = verdict
                if !verdict.isGranted, status.state == .ok { status.state = .notGranted }
                return status
            }
        }
    }
}
