import MicroappSDK

/// Which capabilities a run allows (`--allow CAPABILITY`, by default only `files:scratch`) and whether a feature that
/// declares more is refused (`--strict`) or only warned about. A capability this host does not know is always
/// refused: it cannot be granted, and a plugin of an SDK this host accepts has no business naming it.
public struct CapabilityPolicy: Sendable, Equatable {
    /// The capabilities this host knows how to grant.
    public static let known: [Capability] = [.network, .scratchFiles]
    /// One line saying what each known capability lets a feature do (for `keys`).
    public static let summaries: [Capability: String] = [
        .network: "Open network connections (an isolated feature gets no sockets without it)",
        .scratchFiles: "Read and write files in the feature's own scratch folder, and nowhere else",
    ]
    /// What `--allow` defaults to.
    public static let defaultAllowed: Set<Capability> = [.scratchFiles]

    /// What a feature may declare without a warning (or, strict, without being refused).
    public var allowed: Set<Capability>
    /// Whether a feature that declares anything else is refused.
    public var strict: Bool

    /// A policy allowing `allowed`.
    public init(allowed: Set<Capability> = CapabilityPolicy.defaultAllowed, strict: Bool = false) {
        self.allowed = allowed
        self.strict = strict
    }

    /// What the policy says about a set of features.
    public struct Review: Sendable, Equatable {
        /// Features that may not run, by id, each with its reason.
        public var refused: [String: Problem] = [:]
        /// Features that run with a capability the policy does not allow (not strict).
        public var warnings: [Problem] = []

        /// A review with nothing refused and nothing to warn about.
        public init() {}
    }

    /// Reviews each manifest's capabilities; the features in `sandboxed` run in a sandboxed child, which gets no
    /// capability the policy does not allow (the others run in the app's process, where nothing can be withheld).
    public func review(_ manifests: [FeatureManifest], sandboxed: Set<String> = []) -> Review {
        var review = Review()
        let knownNames = Self.known.map(\.rawValue).joined(separator: ", ")
        for manifest in manifests {
            let unknown = manifest.capabilities.filter { !Self.known.contains($0) }
            if !unknown.isEmpty {
                review.refused[manifest.id] = Problem(
                    .unknownCapability, subject: manifest.id,
                    reason:
                        "it declares the capability \(Self.list(unknown)), which this host does not know (it knows \(knownNames))",
                    fix: "remove \(Self.list(unknown)) from the feature's `capabilities` and rebuild it")
                continue
            }
            let beyond = manifest.capabilities.filter { !allowed.contains($0) }
            guard !beyond.isEmpty else { continue }
            let allowing = allowed.isEmpty ? "nothing" : Self.list(allowed.sorted())
            let options = beyond.map { "--allow \($0)" }.joined(separator: " ")
            if strict {
                review.refused[manifest.id] = Problem(
                    .capabilityNotAllowed, subject: manifest.id,
                    reason: "it declares \(Self.list(beyond)), and --strict allows only \(allowing)",
                    fix: "if you trust \(manifest.id) with it, add \(options); otherwise leave the feature out")
            } else if sandboxed.contains(manifest.id) {
                review.warnings.append(
                    Problem(
                        .capabilityNotAllowed, subject: manifest.id,
                        reason:
                            "it declares \(Self.list(beyond)), beyond what the policy allows (\(allowing)); not granted: it runs in its sandbox without it",
                        fix: "add \(options) if you trust it with that, or run with --strict to refuse it"))
            } else {
                review.warnings.append(
                    Problem(
                        .capabilityNotAllowed, subject: manifest.id,
                        reason:
                            "it declares \(Self.list(beyond)), beyond what the policy allows (\(allowing)); it has it anyway: it runs in the app's process, with every right of the app",
                        fix:
                            "add \(options) to say you trust it, run it isolated (--isolation process) to withhold it, or run with --strict to refuse it"
                    ))
            }
        }
        return review
    }

    /// `'network'`, `'network', 'files:scratch'`.
    private static func list(_ capabilities: [Capability]) -> String {
        capabilities.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    }
}
