import MicroappCore
import MicroappIsolation
import MicroappPlatform
import MicroappSDK

/// Where one loaded feature runs: what was decided for it, what the runtime is handed to start it, and where it
/// really runs: a library decided `process` is started in a feature-host child (`IsolatedPlugin`), one decided `none`
/// is loaded into this process (`PluginImage`); `running` is read from which of the two it is.
package struct FeaturePlacement {
    /// The loaded plugin: an image in this process, or a sandboxed child.
    package let plugin: any LoadedPlugin
    /// Where it should run, and why.
    package let decision: IsolationDecision
    /// Where it runs.
    package var running: Isolation { plugin is IsolatedPlugin ? .process : .inProcess }

    /// `plugin`, placed as `decision` says.
    package init(plugin: any LoadedPlugin, decision: IsolationDecision) {
        self.plugin = plugin
        self.decision = decision
    }

    /// What the runtime starts.
    package var source: FeatureSource { .plugin(plugin) }

    /// The capabilities its process is granted: what its manifest declares (a feature declaring one the host does not
    /// know, or, under `--strict`, one the policy does not allow, is refused before it starts).
    package var grants: [Capability] { plugin.manifest.capabilities }

    /// Why there.
    package var why: String { decision.reason }
}

extension LoadedPluginSet {
    /// Every loaded library: the images in this process, then the isolated children.
    package var plugins: [any LoadedPlugin] { images + isolated }

    /// Each loaded feature's placement, in the order of `plugins`.
    package var placements: [FeaturePlacement] {
        plugins.map { FeaturePlacement(plugin: $0, decision: isolation(of: $0.path)) }
    }

    /// Where each feature runs, by id (for frames).
    package var running: [String: Isolation] {
        Dictionary(placements.map { ($0.plugin.manifest.id, $0.running) }, uniquingKeysWith: { first, _ in first })
    }
}
