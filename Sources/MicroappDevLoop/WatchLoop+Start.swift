import MicroappCore
import MicroappIsolation
import MicroappLoading
import MicroappPlatform

extension WatchLoop {
    /// `--watch`: swaps in each new build of a running feature's library, and rebuilds a feature whose sources
    /// change when its library was built in a repository (the one this executable came from, or another one named
    /// with --plugins). New builds are probed in a child process unless `probing` is false; `willSwap` hears of each
    /// copy before its code runs; an isolated feature's new build starts on its mocks with `mocks` (solo).
    @MainActor
    package static func started(
        _ runtime: AppRuntime, images: [any LoadedPlugin], directories: [String], probing: Bool,
        environment: HostEnvironment, allowingUnsandboxed: Bool = false, isolation: IsolationLog? = nil,
        mocks: [String: String]? = nil,
        willSwap: ((_ feature: String, _ copy: String) -> Void)? = nil
    ) -> WatchLoop {
        let swapper = HotSwapper.forRun(
            runtime, images: images, probing: probing, environment: environment,
            allowingUnsandboxed: allowingUnsandboxed, isolation: isolation, mocks: mocks, willSwap: willSwap)
        return started(swapper, images: images, directories: directories, environment: environment)
    }

    /// `--watch` with `swapper` (shared with `run --channel`, so copies of both are numbered once).
    @MainActor
    package static func started(
        _ swapper: HotSwapper, images: [any LoadedPlugin], directories: [String], environment: HostEnvironment
    ) -> WatchLoop {
        var sources: [String: FeatureSources] = [:]
        for image in images {
            if let watched = FeatureSources(library: image.path, environment: environment) {
                sources[image.manifest.id] = watched
            }
        }
        let watch = WatchLoop(
            swapper: swapper, libraryDirectories: directories, sources: sources, loaded: images.map(\.path),
            environment: environment)
        watch.start()
        return watch
    }
}

extension HotSwapper {
    /// The swapper of a run's features `images`: builds of in-process features are probed (unless `probing` is
    /// false), those of isolated ones start in a child through `isolation` (the sandbox stands in), on `mocks` (solo).
    @MainActor
    package static func forRun(
        _ runtime: AppRuntime, images: [any LoadedPlugin], probing: Bool, environment: HostEnvironment,
        allowingUnsandboxed: Bool = false, isolation: IsolationLog? = nil, mocks: [String: String]? = nil,
        willSwap: ((_ feature: String, _ copy: String) -> Void)? = nil
    ) -> HotSwapper {
        let isolated = Set(images.filter { $0 is IsolatedPlugin }.map(\.manifest.id))
        let swapper = HotSwapper(
            runtime: runtime, libraries: HotSwapper.libraries(of: images),
            probe: probing && images.contains { !($0 is IsolatedPlugin) }
                ? PluginProbe(environment: environment, allowingUnsandboxed: allowingUnsandboxed) : nil,
            swapsDirectory: HotSwapper.defaultDirectory(in: environment))
        swapper.willSwap = willSwap
        swapper.isolation = isolated.isEmpty ? nil : isolation
        swapper.isolatedFeatures = isolated
        swapper.mocks = mocks
        return swapper
    }
}
