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

    /// Builds the table; patterns that do not parse are left out (the resolver reports them).
    public init(_ manifests: [FeatureManifest]) {
        for manifest in manifests {
            for route in manifest.routes {
                guard let pattern = try? RoutePattern(route.pattern) else { continue }
                entries.append(Entry(pattern: pattern, declaration: route, feature: manifest.id))
            }
        }
    }

    /// The route `url` opens, if any; literal segments beat parameters when two patterns match.
    public func match(_ url: String) -> Match? {
        var best: Match?
        var bestLiterals = -1
        for entry in entries {
            guard let parameters = entry.pattern.match(url) else { continue }
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

    /// Where people who must sign in are sent, if a feature declares such a route.
    public var signInRoute: Entry? { entries.first { $0.declaration.isSignIn } }

    /// The first route of `feature`, where it starts.
    public func firstRoute(of feature: String) -> Entry? { entries.first { $0.feature == feature } }
}
