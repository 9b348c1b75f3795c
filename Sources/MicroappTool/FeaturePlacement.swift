import MicroappCore
import MicroappPlatform
import MicroappSDK

/// Where one loaded feature runs: what was decided for it, and what the runtime is handed to start it. This is the
/// one place a feature decided `process` is handed to a child process; this build has no feature host yet, so every
/// feature starts from its image in this process, `running` says so, and `shortfall` tells the person.
struct FeaturePlacement {
    /// The loaded library.
    let image: PluginImage
    /// Where it should run, and why.
    let decision: IsolationDecision

    /// Where it runs.
    var running: Isolation { .inProcess }

    /// The capabilities its process is granted: what its manifest declares (a feature declaring one the host does not
    /// know, or, under `--strict`, one the policy does not allow, is refused before it starts).
    var grants: [Capability] { image.manifest.capabilities }

    /// What the runtime starts.
    var source: FeatureSource { .plugin(image) }

    /// Why there; with what really happens when it runs elsewhere.
    var why: String {
        running == decision.mode
            ? decision.reason : "\(decision.reason); runs in-process: no feature host in this build"
    }

    /// The notice when it runs somewhere else than decided, nil when it runs as decided.
    var shortfall: Notice? {
        guard running != decision.mode else { return nil }
        return Notice(
            level: .info, code: "not-isolated",
            message:
                "\(image.manifest.displayName) runs in this process: it should run isolated (\(decision.reason)), and this build cannot start features in processes of their own",
            fix: "run only libraries you trust, or lock them (`microapp lock DIR`)", feature: image.manifest.id)
    }
}

extension LoadedPluginSet {
    /// Each image's placement, in load order.
    var placements: [FeaturePlacement] { images.map { FeaturePlacement(image: $0, decision: isolation(of: $0)) } }

    /// Where each feature runs, by id (for frames).
    var running: [String: Isolation] {
        Dictionary(placements.map { ($0.image.manifest.id, $0.running) }, uniquingKeysWith: { first, _ in first })
    }
}
