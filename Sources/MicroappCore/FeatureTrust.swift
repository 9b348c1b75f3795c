/// How far the host trusts a feature's library: what grants, origin marks and navigation rules rest on. Ordered from
/// least to most trusted, so `trust >= .pinned` reads as "at least pinned by a trusted lock".
public enum FeatureTrust: String, Codable, Sendable, CaseIterable, Comparable {
    /// From a folder nobody vouched for: a `--plugins DIR` or an installed host's folder without a trusted lock, or a
    /// folder whose lock was ignored.
    case untrusted
    /// Pinned by a trusted `plugins.lock` in its folder (outside this repository's build).
    case pinned
    /// The repository's own features (its build folder, a folder in `Plugins/`), or a type linked into the host.
    case own

    /// Least trusted first.
    public static func < (lhs: FeatureTrust, rhs: FeatureTrust) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

extension LibraryTrust {
    /// The trust its origin and lock earn: a folder whose lock was ignored (someone else could write it) is
    /// `untrusted` wherever it is; else the repository's own build is `own`, a library a trusted lock pins is
    /// `pinned`, and anything else (no lock) is `untrusted`.
    public var level: FeatureTrust {
        switch (origin, lock) {
        case (_, .untrusted): .untrusted
        case (.repository, _): .own
        case (_, .pinned): .pinned
        default: .untrusted
        }
    }
}
