import MicroappCore
import MicroappIsolation
import MicroappLoading
import MicroappPlatform
import MicroappSDK

/// Everything the inspect and run commands share: the plugins found, loaded, filtered and resolved
/// (`PluginSetLoader.load`).
package struct LoadedPluginSet {
    /// The libraries loaded into this process.
    package let images: [PluginImage]
    /// The libraries running in sandboxed children (those `isolation` puts in a process), beside `images`.
    package var isolated: [IsolatedPlugin] = []
    /// Where isolated features' printed lines go, once the runtime is there.
    package var isolationLog: IsolationLog?
    /// The host's services the features were resolved against.
    package let container: Container
    /// The resolver's verdict on the set.
    package let resolution: Resolution
    /// Files that could not load, then resolver problems.
    package let problems: [Problem]
    /// What did not stop a library from loading but should be looked at (a folder whose lock is gone).
    package let warnings: [Problem]
    /// Libraries of the repository's build folder that were not loaded because their feature folder is gone.
    package let leftover: LeftoverLibraries?
    /// The start-up build's failure, when the plugins were built first and that failed (older libraries loaded).
    package var buildFailure: Notice?
    /// Where each feature runs and why, by library path (`--isolation`, its origin and its folder's lock).
    package var isolation: [String: IsolationDecision] = [:]
    /// Whether features not on the first screen start after its frame (`PluginSetRequest.startsLate`).
    package var startsLate = false

    /// The features whose start waits for their route or the first frame (`AppRuntime.Options.startsLater`): with
    /// `startsLate`, every feature in this process and every isolated one known from its record; the others' start
    /// (an isolated library met for the first time) was its handshake, already awaited.
    package var startsLater: Set<String> {
        guard startsLate else { return [] }
        return Set(images.map(\.manifest.id) + isolated.filter(\.startsWithFeature).map(\.manifest.id))
    }

    /// A set of `images` resolved against `container`.
    package init(
        images: [PluginImage], container: Container, resolution: Resolution, problems: [Problem],
        warnings: [Problem], leftover: LeftoverLibraries?, buildFailure: Notice?,
        isolation: [String: IsolationDecision]
    ) {
        self.images = images
        self.container = container
        self.resolution = resolution
        self.problems = problems
        self.warnings = warnings
        self.leftover = leftover
        self.buildFailure = buildFailure
        self.isolation = isolation
    }

    /// Ends the isolated features' children (none was started: the inspection commands only read their manifests),
    /// waiting for each, removes their private and pinned folders and ends the template process. `routes`, `doctor`,
    /// `keys` and `graph` call it on every way out, so nothing they started outlives them.
    @MainActor
    package func endIsolated() { IsolatedPlugin.endAll(isolated, log: isolationLog) }

    /// Where the feature of the library at `path` runs and why.
    package func isolation(of path: String) -> IsolationDecision {
        isolation[path] ?? IsolationDecision(.inProcess, reason: "not decided")
    }
}
