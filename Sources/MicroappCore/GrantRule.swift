import MicroappSDK

/// Who may use one key (a service or a piece of state) that the host or a feature offers: features named by id, and
/// every feature at least as trusted as `trust`. Nothing is ambient: a requirement is a request, and the host's
/// configuration routes each key only to the features this rule admits (Fuchsia's `offer`, Android's
/// signature-level permissions).
public struct GrantRule: Sendable, Equatable, Codable {
    /// Features that may use the key with all the access it is offered with, by id — when their library is at least
    /// pinned: an id is what a library says of itself, and an untrusted one could take any (Android grants a
    /// signature permission to the package signed with the same key, not to any package of that name).
    public var features: [String]
    /// Every feature at least this trusted may use it too (`untrusted`: anyone, the rule is public); nil: only
    /// `features` and explicit grants.
    public var trust: FeatureTrust?
    /// The most access a feature gets through `trust` alone (`read` makes state public read-only).
    public var trustAccess: Access

    /// A rule admitting `features` with the key's full access, and features at least as trusted as `trust` with
    /// `trustAccess`.
    public init(features: [String] = [], trust: FeatureTrust? = nil, trustAccess: Access = .readWrite) {
        self.features = features
        self.trust = trust
        self.trustAccess = trustAccess
    }

    /// Anyone, an untrusted feature too.
    public static let `public` = GrantRule(trust: .untrusted)

    /// Anyone may read it, only `writers` may write it (shared state such as the session).
    public static func publicReadOnly(writers: [String]) -> GrantRule {
        GrantRule(features: writers, trust: .untrusted, trustAccess: .read)
    }

    /// Only the features named (and explicit grants).
    public static func only(_ features: String...) -> GrantRule { GrantRule(features: features) }

    /// The rule of a key nobody names (the host's configuration or the providing feature's manifest): the
    /// repository's own features and those of a folder pinned by a trusted lock — code someone vouched for — and
    /// never an untrusted folder's, which gets only what is marked public or granted by name.
    public static let `default` = GrantRule(trust: .pinned)

    /// The most access this rule gives feature `id` trusted as `level`; nil when it gives none.
    package func access(for id: String, trust level: FeatureTrust) -> Access? {
        if features.contains(id), level >= Self.namedTrust { return .readWrite }
        if let trust, level >= trust { return trustAccess }
        return nil
    }

    /// The least trust a feature named by id needs for the name to count.
    package static let namedTrust = FeatureTrust.pinned

    /// Whether an untrusted feature may use the key (read at least) without being named.
    package var isPublic: Bool { trust == .untrusted }

    /// Who the rule admits, for messages and `keys`: `anyone (public)`, `anyone read-only (public); auth read-write`,
    /// `settings, or features own or pinned`, `search only`.
    package var summary: String {
        let named = features.joined(separator: ", ")
        guard let trust else { return features.isEmpty ? "nobody unless granted" : "\(named) only" }
        let others: String
        switch trust {
        case .untrusted: others = trustAccess == .read ? "anyone read-only (public)" : "anyone (public)"
        case .pinned: others = "features own or pinned" + (trustAccess == .read ? " (read-only)" : "")
        case .own: others = "the repository's own features" + (trustAccess == .read ? " (read-only)" : "")
        }
        guard !features.isEmpty else { return others }
        return trust == .untrusted ? "\(others); \(named) read-write" : "\(named), or \(others)"
    }
}

/// Everything that decides who may use which key: the host's rules by key, and what is granted beyond them by name
/// (`--grant FEATURE=KEY`, a trusted lock entry's `grants`).
public struct GrantRules: Sendable, Equatable {
    /// Who may use each key the host offers, by key id; a key not named here follows `GrantRule.default`.
    public var keys: [String: GrantRule]
    /// Keys granted to features by name beyond `keys` (all the access the key is offered with), by feature id.
    public var explicit: [String: Set<String>]

    /// Rules naming `keys`, granting `explicit` beyond them.
    public init(keys: [String: GrantRule] = [:], explicit: [String: Set<String>] = [:]) {
        self.keys = keys
        self.explicit = explicit
    }

    /// Adds `key` to what `feature` is granted by name.
    public mutating func grant(_ key: String, to feature: String) {
        explicit[feature, default: []].insert(key)
    }
}

/// How a requirement stands against the grant rules: granted (and why) or not (and who may use the key).
public struct GrantVerdict: Sendable, Equatable {
    /// Why a requirement is granted, or that it is not.
    public enum Basis: String, Sendable, Equatable {
        /// The rule names the feature, or admits its trust.
        case rule
        /// `--grant` or a trusted lock entry names the key for the feature.
        case explicit
        /// The feature's own service, or its own mocks (solo): nothing to grant.
        case own
        /// Nobody offers the key: nothing to grant (the requirement is missing, not refused).
        case unoffered
        /// Not granted.
        case refused
    }

    /// Why it is granted, or `refused`.
    public var basis: Basis
    /// Who may use the key (`GrantRule.summary`); nil when no rule applies (own, unoffered).
    public var rule: String?

    /// Whether the requirement gets the key.
    public var isGranted: Bool { basis != .refused }
}

/// What the resolver decided the host may hand to each feature: the rules, who provides each key and how far each
/// feature is trusted. The runtime asks it before a feature gets a value (in-process, through its container; in a
/// child, before the host serves a call or a state), so a hot-swapped version that asks for more gets no more.
public struct GrantTable: Sendable, Equatable {
    /// The host's rules and explicit grants.
    public var rules: GrantRules
    /// Who provides each key (`host`, a feature id, `mocks`), by key id.
    public var providers: [String: String]
    /// How far the host trusts each feature, by id; a feature not listed is untrusted.
    public var trust: [String: FeatureTrust]

    /// A table of `rules` over `providers`, trusting features as `trust` says.
    public init(
        rules: GrantRules = GrantRules(), providers: [String: String] = [:], trust: [String: FeatureTrust] = [:]
    ) {
        self.rules = rules
        self.providers = providers
        self.trust = trust
    }

    /// The rule of `key`: the host's, or the default. A service a feature provides follows the default rule: a
    /// manifest cannot say who may call its services yet (an SDK field to come).
    public func rule(of key: String) -> GrantRule {
        if let provider = providers[key], provider != "host", provider != Container.mocks { return .default }
        return rules.keys[key] ?? .default
    }

    /// Whether (and why) `feature` may have `requirement`.
    public func verdict(on requirement: Requirement, of feature: String) -> GrantVerdict {
        guard let provider = providers[requirement.key] else { return GrantVerdict(basis: .unoffered) }
        if provider == feature || provider == Container.mocks { return GrantVerdict(basis: .own) }
        let rule = rule(of: requirement.key)
        if rules.explicit[feature]?.contains(requirement.key) == true {
            return GrantVerdict(basis: .explicit, rule: rule.summary)
        }
        if let access = rule.access(for: feature, trust: trust[feature] ?? .untrusted), requirement.access <= access {
            return GrantVerdict(basis: .rule, rule: rule.summary)
        }
        return GrantVerdict(basis: .refused, rule: rule.summary)
    }

    /// Whether `feature` may have `requirement` (what the runtime asks before handing a value over).
    public func allows(_ requirement: Requirement, to feature: String) -> Bool {
        verdict(on: requirement, of: feature).isGranted
    }
}
