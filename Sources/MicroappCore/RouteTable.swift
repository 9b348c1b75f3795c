import MicroappSDK

/// Every route of the features that loaded, matched by URL.
public struct RouteTable: Sendable {
    /// One declared route and its owner.
    public struct Entry: Sendable {
        /// The parsed pattern.
        public var pattern: RoutePattern
        /// The declaration from the manifest (guards, sign-in).
        public var declaration: RouteDeclaration
        /// The feature that answers it.
        public var feature: String
    }

    /// A URL resolved to a route.
    public struct Match: Sendable {
        /// The route it matched.
        public var entry: Entry
        /// The location, with its parameters.
        public var location: Location
    }

    /// All routes, in declaration order.
    public private(set) var entries: [Entry] = []
    /// Indices into `entries` by scheme and segment count: a lookup only looks at routes that could match.
    private var candidates: [String: [Int]] = [:]

    /// Each feature's top-level entry point (its tab), by feature id.
    public private(set) var tabs: [String: TabDeclaration] = [:]

    /// Builds the table; patterns that do not parse are left out (the resolver reports them).
    public init(_ manifests: [FeatureManifest]) {
        for manifest in manifests {
            tabs[manifest.id] = manifest.tab
            for route in manifest.routes {
                guard let pattern = try? RoutePattern(route.pattern) else { continue }
                candidates[Self.key(pattern.scheme, pattern.segments.count), default: []].append(entries.count)
                entries.append(Entry(pattern: pattern, declaration: route, feature: manifest.id))
            }
        }
    }

    /// The route `url` opens, if any; literal segments beat parameters when two patterns match.
    public func match(_ url: String) -> Match? {
        guard let (scheme, path) = try? RoutePattern.components(of: url) else { return nil }
        var best: Match?
        var bestLiterals = -1
        for index in candidates[Self.key(scheme, path.count)] ?? [] {
            let entry = entries[index]
            guard let parameters = entry.pattern.match(scheme: scheme, path: path) else { continue }
            let literals = entry.pattern.segments.count - parameters.count
            if literals > bestLiterals {
                best = Match(
                    entry: entry,
                    location: Location(url: url, pattern: entry.pattern.description, parameters: parameters))
                bestLiterals = literals
            }
        }
        return best
    }

    private static func key(_ scheme: String, _ count: Int) -> String { "\(scheme)/\(count)" }

    /// Where people who must sign in are sent, if a feature declares such a route.
    public var signInRoute: Entry? { entries.first { $0.declaration.isSignIn } }

    /// The route of `feature`'s tab, its top-level entry point; nil when it declares no tab.
    public func entryRoute(of feature: String) -> Entry? {
        guard let tab = tabs[feature] else { return nil }
        return entries.first { $0.feature == feature && $0.pattern.description == tab.route }
    }

    /// The first route of `feature`, where it starts.
    public func firstRoute(of feature: String) -> Entry? { entries.first { $0.feature == feature } }
}
