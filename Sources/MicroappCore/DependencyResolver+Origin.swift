import MicroappSDK

// Whose screen is it: a route scheme belongs to one feature, and a display name or tab title to one feature of the
// running set, so that a library cannot pass its screens off as another's (Auth's sign-in form under `auth://`, a
// second "Settings" tab). Who keeps a scheme: the feature the host reserves it for; else the feature whose id it is;
// else the most trusted declaring it, then the earliest. Who keeps a name: the feature the host reserves it for; else
// the most trusted claiming it, then the earliest. Everyone else is refused (`scheme-taken`, `name-taken`; a name that
// only looks like the other one, `name-confusable`). Names compare as people read them (`NameSkeleton`).
extension DependencyResolver {
    /// Disables the features that declare routes in a scheme that is not theirs or use a name another feature keeps;
    /// returns the features that keep their schemes (in their order), for the route check that follows.
    static func checkOrigin(
        _ features: [Candidate], rules: ResolutionRules, routes: RouteReading, disable: (String, Problem) -> Void
    ) -> [Candidate] {
        // Most trusted first, then load order: who keeps a scheme or a name when the host has not said.
        let ranked = features.enumerated().sorted { ($0.element.trust, -$0.offset) > ($1.element.trust, -$1.offset) }
            .map(\.element)
        let byID = Dictionary(features.map { ($0.manifest.id, $0) }, uniquingKeysWith: { first, _ in first })

        var schemeOwners: [String: Candidate] = [:]
        var refusedSchemes = Set<String>()
        for feature in ranked {
            for (scheme, _) in schemes(of: feature, routes: routes) where schemeOwners[scheme] == nil {
                if let reserved = rules.reservedSchemes[scheme] {
                    if let owner = byID[reserved], mayUseReserved(owner, id: reserved) { schemeOwners[scheme] = owner }
                } else if let owner = byID[scheme] {
                    schemeOwners[scheme] = owner
                } else {
                    schemeOwners[scheme] = feature
                }
            }
        }
        for feature in features {
            for (scheme, route) in schemes(of: feature, routes: routes) {
                let owner = schemeOwners[scheme]
                guard owner?.manifest.id != feature.manifest.id else { continue }
                let id = feature.manifest.id
                let whose: String
                if let reserved = rules.reservedSchemes[scheme] {
                    whose = "which the host reserves for its own \(reserved)"
                } else if let owner {
                    whose = "which belongs to \(owner.manifest.id) (\(owner.path))"
                } else {
                    whose = "which belongs to another feature"
                }
                disable(
                    id,
                    Problem(
                        .schemeTaken, subject: feature.path,
                        reason: "route '\(route)' of \(id) is in the scheme '\(scheme)://', \(whose)",
                        fix:
                            "declare \(id)'s routes in its own scheme ('\(id)://…') and open \(scheme)'s routes by URL;"
                            + " or load only one of the two"))
                refusedSchemes.insert(id)
                break
            }
        }
        // A feature whose name may not be shown keeps no name either.
        let reading = NameReading()
        let holders = ranked.filter {
            !refusedSchemes.contains($0.manifest.id) && defects(of: $0, reading: reading).isEmpty
        }
        let refusedNames = checkNames(features, holders: holders, rules: rules, reading: reading, disable: disable)
        return features.filter { !refusedSchemes.contains($0.manifest.id) && !refusedNames.contains($0.manifest.id) }
    }

    /// The name problems (`name-taken`, `name-confusable`) of `summaries`, features pinned together (what `microapp
    /// lock` is about to do), by their library's path: the same rules as `resolve`, each feature as `pinned`.
    public static func nameProblems(_ summaries: [(path: String, manifest: ManifestSummary)], rules: ResolutionRules)
        -> [(path: String, problem: Problem)]
    {
        let features = summaries.map { path, summary in
            let manifest = FeatureManifest(
                id: summary.id, version: summary.version, displayName: summary.displayName, routes: [],
                tab: summary.tab)
            return Candidate(manifest: manifest, path: path, trust: .pinned)
        }
        var problems: [(path: String, problem: Problem)] = []
        _ = checkNames(features, holders: features, rules: rules, reading: NameReading()) { _, problem in
            problems.append((problem.subject, problem))
        }
        return problems
    }

    /// Refuses every name that may not be shown (only invisible characters, scripts mixed in a word) and every name
    /// claim another feature keeps, and returns who was refused: the holder of each name is the feature the host
    /// reserves it for, else the first of `holders` (ranked) claiming it. Names that read alike but differ
    /// (`\u{0405}ettings` for "Settings") are `name-confusable`, naming the name they look like.
    private static func checkNames(
        _ features: [Candidate], holders: [Candidate], rules: ResolutionRules, reading: NameReading,
        disable: (String, Problem) -> Void
    ) -> Set<String> {
        // One feature and no name the host reserves: a name can be no one else's, so no skeleton is worked out (a
        // start with one feature spent 0.05 M instructions on keys compared with nothing). Defects still count.
        let alone = features.count <= 1 && rules.reservedNames.isEmpty
        let owners = alone ? [:] : nameOwners(holders, rules: rules, reading: reading)
        var refused = Set<String>()
        for feature in features {
            let id = feature.manifest.id
            let defects = defects(of: feature, reading: reading)
            let claims = alone ? [] : names(of: feature, reading: reading)
            let clash = claims.lazy.compactMap {
                key, name, kind -> (String, String, String, String)? in
                let owner = owners[key]
                let reserved = reservedName(key, rules: rules, reading: reading)
                // A name nobody kept (its one claimant was refused for its scheme) is not taken.
                guard owner?.manifest.id != id, owner != nil || reserved != nil else { return nil }
                let other =
                    owner.flatMap { owner in names(of: owner, reading: reading).first { $0.key == key }?.name }
                    ?? rules.reservedNames.keys.sorted().first { reading.key($0) == key } ?? name
                let whose =
                    owner.map { "which \($0.manifest.id) (\($0.path)) already uses" }
                    ?? reserved.map { "which the host reserves for its own \($0)" } ?? "which another feature uses"
                return (name, kind, other, whose)
            }.first
            if let (name, kind, other, whose) = clash {
                // The same letters (case and spaces aside) are the name taken; anything else only looks like it.
                let same = compact(name.lowercased()) == compact(other.lowercased())
                let defect = defects.first { $0.name == name }.map { " (it \($0.defect))" } ?? ""
                disable(
                    id,
                    Problem(
                        same ? .nameTaken : .nameConfusable, subject: feature.path,
                        reason: same
                            ? "\(id) calls itself '\(name)' (its \(kind)), \(whose)"
                            : "\(id) calls itself '\(name)' (its \(kind)), which looks like '\(other)'\(defect), \(whose)",
                        fix:
                            "give \(id) a display name and tab title of its own; the names people see tell features apart"
                    ))
                refused.insert(id)
            } else if let (name, kind, defect) = defects.first {
                disable(
                    id,
                    Problem(
                        .nameConfusable, subject: feature.path,
                        reason: "\(id)'s \(kind) '\(name)' \(defect): people cannot tell what it reads as",
                        fix: "give \(id) a \(kind) people can read, in one script per word"))
                refused.insert(id)
            }
        }
        return refused
    }

    /// Each name of `feature` that may not be shown at all, with its kind and why.
    private static func defects(
        of feature: Candidate, reading: NameReading
    ) -> [(name: String, kind: String, defect: String)] {
        var shown = [(feature.manifest.displayName, "display name")]
        if let tab = feature.manifest.tab { shown.append((tab.title, "tab title")) }
        return shown.compactMap { name, kind in reading.defect(name).map { (name, kind, $0) } }
    }

    /// `text` without white space.
    private static func compact(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { !$0.properties.isWhitespace }))
    }

    /// Who keeps each name (by its comparison key): the reserved owner when it is among `holders` and may use it,
    /// else the first of `holders` claiming it; a reserved name whose owner is absent has no holder.
    private static func nameOwners(
        _ holders: [Candidate], rules: ResolutionRules, reading: NameReading
    ) -> [String: Candidate] {
        var owners: [String: Candidate] = [:]
        for feature in holders {
            for (key, _, _) in names(of: feature, reading: reading) where owners[key] == nil {
                if let reserved = reservedName(key, rules: rules, reading: reading) {
                    if let owner = holders.first(where: { $0.manifest.id == reserved }),
                        mayUseReserved(owner, id: reserved)
                    {
                        owners[key] = owner
                    }
                } else {
                    owners[key] = feature
                }
            }
        }
        return owners
    }

    /// The feature the host reserves the name with comparison `key` for, if any.
    private static func reservedName(_ key: String, rules: ResolutionRules, reading: NameReading) -> String? {
        rules.reservedNames.first { reading.key($0.key) == key }?.value
    }

    /// A reserved scheme or name is its feature's, by id, when that library is the repository's own or pinned by a
    /// trusted lock: an id is what a library says of itself, and one from an untrusted folder passing for Auth (Auth
    /// not loaded, say) must not get Auth's scheme or name. Pin the folder (`microapp lock DIR`) to trust a copy.
    private static func mayUseReserved(_ feature: Candidate, id: String) -> Bool {
        isNamedOwner(feature, id)
    }

    /// Each scheme `feature` declares routes in, once, with the first such route; routes that do not parse are left
    /// to the route check.
    private static func schemes(of feature: Candidate, routes: RouteReading) -> [(scheme: String, route: String)] {
        var seen = Set<String>()
        return feature.manifest.routes.compactMap { route in
            guard case .success(let pattern) = routes.pattern(route.pattern), seen.insert(pattern.scheme).inserted
            else {
                return nil
            }
            return (pattern.scheme, route.pattern)
        }
    }

    /// The names `feature` shows people: its display name and its tab's title, each once by comparison key.
    private static func names(
        of feature: Candidate, reading: NameReading
    ) -> [(key: String, name: String, kind: String)] {
        let display = feature.manifest.displayName
        var claims = [(reading.key(display), display, "display name")]
        if let tab = feature.manifest.tab, case let key = reading.key(tab.title), key != claims[0].0 {
            claims.append((key, tab.title, "tab title"))
        }
        return claims.filter { !$0.0.isEmpty }
    }

    /// How names are compared: as people read them (`NameSkeleton.key`: case, width, spaces, invisible characters
    /// and look-alike letters of other scripts do not tell two names apart).
    static func nameKey(_ name: String) -> String { NameSkeleton.key(name) }
}

/// Each route pattern parsed once per check: the scheme check and the route check both read every pattern (a
/// pattern's parse is 10 k instructions, and they were parsed three times at each start).
final class RouteReading {
    private var patterns: [String: Result<RoutePattern, RouteError>] = [:]

    /// `RoutePattern(text)`, or why it is not one, once per text.
    func pattern(_ text: String) -> Result<RoutePattern, RouteError> {
        if let known = patterns[text] { return known }
        let pattern = Result { () throws(RouteError) in try RoutePattern(text) }
        patterns[text] = pattern
        return pattern
    }
}

/// Each name's comparison key and defect, worked out once per check: a feature's names are read for the holders, for
/// its own claims and for each clash, and each reading is an ICU normalization and skeleton (one feature's names cost
/// 0.67 M instructions read at every use, 0.09 M read once).
final class NameReading {
    private var keys: [String: String] = [:]
    private var defects: [String: String?] = [:]

    /// `NameSkeleton.key(name)`, once per name.
    func key(_ name: String) -> String {
        if let known = keys[name] { return known }
        let key = NameSkeleton.key(name)
        keys[name] = key
        return key
    }

    /// `NameSkeleton.defect(name)`, once per name.
    func defect(_ name: String) -> String? {
        if let known = defects[name] { return known }
        let defect = NameSkeleton.defect(name)
        defects[name] = .some(defect)
        return defect
    }
}
