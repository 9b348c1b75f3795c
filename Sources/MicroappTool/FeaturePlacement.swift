import MicroappCore
import MicroappPlatform
import MicroappSDK

/// Where one loaded feature runs: what was decided for it, what the runtime is handed to start it, and where it
/// really runs: a library decided `process` is started in a feature-host child (`IsolatedPlugin`), one decided `none`
/// is loaded into this process (`PluginImage`); `running` is read from which of the two it is.
struct FeaturePlacement {
    /// The loaded plugin: an image in this process, or a sandboxed child.
    let plugin: any LoadedPlugin
    /// Where it should run, and why.
    let decision: IsolationDecision
    /// Where it runs.
    var running: Isolation { plugin is IsolatedPlugin ? .process : .inProcess }

    /// What the runtime starts.
    var source: FeatureSource { .plugin(plugin) }

    /// The capabilities its process is granted: what its manifest declares (a feature declaring one the host does not
    /// know, or, under `--strict`, one the policy does not allow, is refused before it starts).
    var grants: [Capability] { plugin.manifest.capabilities }

    /// Why there.
    var why: String { decision.reason }
}

extension LoadedPluginSet {
    /// Every loaded library: the images in this process, then the isolated children.
    var plugins: [any LoadedPlugin] { images + isolated }

    /// Each loaded feature's placement, in the order of `plugins`.
    var placements: [FeaturePlacement] {
        plugins.map { FeaturePlacement(plugin: $0, decision: isolation(of: $0.path)) }
    }

    /// Where each feature runs, by id (for frames).
    var running: [String: Isolation] {
        Dictionary(placements.map { ($0.plugin.manifest.id, $0.running) }, uniquingKeysWith: { first, _ in first })
    }
}
