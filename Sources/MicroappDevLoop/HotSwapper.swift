import Foundation
import MicroappCore
import MicroappIsolation
import MicroappLoading
import MicroappPlatform
import MicroappSDK

/// Takes a new build of a running feature's library and swaps it in: copy to a unique path (never over a loaded
/// file), probe the copy in a child process (one started ahead of time and waiting for it), load it, then
/// `AppRuntime.swap` between two events. A build that fails any step never replaces the running version; the reason
/// is posted as an `error` notice. In a folder with a `plugins.lock`, a build the lock does not pin is refused.
@MainActor
public final class HotSwapper {
    /// The app whose features are swapped.
    public let runtime: AppRuntime
    /// The child-process check of each new build; nil loads without it (only for trusted builds: a trap kills the host).
    public var probe: PluginProbe?
    /// Where copies of new builds go, one file per swap (`lib<Feature>-<pid>-<n>.so`).
    public let swapsDirectory: String
    /// Called with the feature id and the copy's path once a copy has loaded, before any of its code runs in the
    /// app: whoever must trace a crash to its library hears of the copy first.
    public var willSwap: ((_ feature: String, _ copy: String) -> Void)?
    private var feature: [String: String] = [:]
    /// Numbers the copies of new builds (taken off the main actor, where builds are prepared).
    private let copies = Counter()
    /// A probe process started ahead of the next swap, so a swap does not wait for a process to start (taken and
    /// refilled off the main actor).
    private let standby = StandbyProbe()
    /// Set when some features run isolated: a new build of one of `isolatedFeatures` then starts in a child of its
    /// own (forked through this log's zygote) and is never mapped here.
    public var isolation: IsolationLog?
    /// The ids of the features that run isolated; nil: all of them, when `isolation` is set.
    public var isolatedFeatures: Set<String>?
    /// `solo`: the `--mock` choices an isolated feature's new build starts on (its own mocks, as the first did).
    public var mocks: [String: String]?

    /// Swaps features of `runtime`; `libraries` maps the file name of each running feature's library
    /// (`libCharacters.so`) to its feature id, so a new file of that name is known as a new build of that feature.
    public init(
        runtime: AppRuntime, libraries: [String: String], probe: PluginProbe?, swapsDirectory: String
    ) {
        self.runtime = runtime
        self.probe = probe
        self.swapsDirectory = swapsDirectory
        self.feature = libraries
        Self.removeCopies(in: swapsDirectory, madeBy: ProcessStatus.isGone)
        standby.refill(probe)
    }

    /// Ends the probe process kept waiting for the next swap.
    public func stop() { standby.cancel() }

    /// The app quits: `stop()`, and this process's copies of new builds are removed (a mapped copy stays mapped
    /// until the process ends, unlinked or not), so none is left in the cache after it.
    public func quit() {
        stop()
        Self.removeCopies(in: swapsDirectory, madeBy: { $0 == ProcessStatus.current })
    }

    /// Maps each plugin's file name to its feature id: what `libraries` of `init` expects.
    public static func libraries(of images: [any LoadedPlugin]) -> [String: String] {
        Dictionary(
            images.map { (($0.path as NSString).lastPathComponent, $0.manifest.id) },
            uniquingKeysWith: { first, _ in first })
    }

    /// `$XDG_CACHE_HOME/microapp/swaps` (or under `~/.cache`) in `environment`.
    public static func defaultDirectory(in environment: HostEnvironment) -> String {
        ((ProbeCache.defaultFile(in: environment) as NSString).deletingLastPathComponent as NSString)
            .appendingPathComponent("swaps")
    }

    /// The feature a library file at `path` is a build of, by its file name; nil for an unknown library.
    public func featureID(forLibrary path: String) -> String? {
        feature[(path as NSString).lastPathComponent]
    }

    /// Swaps in the library at `path` as a new version of `id` (by default the feature its file name belongs to).
    /// Posts a `swapped` notice on success and an `error` notice naming the reason otherwise.
    @discardableResult
    public func swapLibrary(at path: String, feature id: String? = nil) async -> Result<SwapResult, Problem> {
        guard let id = id ?? featureID(forLibrary: path) else {
            return refuse(
                Problem(
                    .notFound, subject: path, reason: "no running feature was loaded from a file of that name",
                    fix: "restart the host to load a new feature"), feature: nil)
        }
        let work = "a hot swap of \((path as NSString).lastPathComponent)"
        runtime.hold(work)
        defer { runtime.release(work) }
        let preparation = preparation(for: id)
        return await swap(await BlockingWork.run { preparation.prepare(path) })
    }

    /// What preparing a new build of `id` takes, to run where the build ran (`WatchLoop` prepares each build on
    /// the build's own thread as soon as its link returns, so the swap itself only maps and hands over).
    public func preparation(for id: String) -> Preparation {
        let isolated = isolation != nil && (isolatedFeatures?.contains(id) ?? true)
        return Preparation(
            feature: id, probe: isolated ? nil : probe, directory: swapsDirectory, copies: copies, standby: standby,
            now: runtime.options.now)
    }

    /// Swaps in a build `Preparation.prepare` made ready: a copy refused or found unusable is refused here, and the
    /// swap's notice counts the time from the preparation's start.
    @discardableResult
    public func swap(_ prepared: Prepared) async -> Result<SwapResult, Problem> {
        let started = prepared.started
        let id = prepared.feature
        let work = "a hot swap of \((prepared.path as NSString).lastPathComponent)"
        runtime.hold(work)
        defer { runtime.release(work) }
        let copy: LibraryCopy
        switch prepared.copy {
        case .success(let made): copy = made
        case .failure(let problem): return refuse(problem, feature: id)
        }
        if let isolation, isolatedFeatures?.contains(id) ?? true {
            return await swapIsolated(copy, feature: id, log: isolation, since: started)
        }
        switch prepared.verdict {
        case .usable, nil: break
        case .refused(let problem), .blocked(let problem): return refuse(problem, feature: id)
        }
        let image: PluginImage
        switch PluginLoader.load(copy) {
        case .success(let loaded): image = loaded
        case .failure(let problem): return refuse(problem, feature: id)
        }
        willSwap?(id, copy.path)
        switch runtime.swap(id, to: .plugin(image), since: started) {
        case .success(let result): return .success(result)
        case .failure(let problem): return refuse(problem, feature: id)
        }
    }

    /// Starts the build at `copy` in a new child, restores the running child's snapshot into it and waits for its
    /// answers (start, state, the screen on top) before its route switches over and the old child ends. Any failure
    /// ends the new child and leaves the old one running. The sandbox stands in for the probe: nothing is mapped here.
    /// The copy (checked against the lock already) moves into the child's folder: it is not read and hashed again.
    private func swapIsolated(
        _ copy: LibraryCopy, feature id: String, log: IsolationLog, since started: ContinuousClock.Instant
    ) async -> Result<SwapResult, Problem> {
        let plugin: IsolatedPlugin
        switch await IsolatedPlugin.launch(copy.path, prepared: copy, log: log, mocks: mocks) {
        case .success(let launched): plugin = launched
        case .failure(let problem): return refuse(problem, feature: id)
        }
        willSwap?(id, copy.path)
        let result = await runtime.swapWhenReady(id, to: .plugin(plugin), since: started)
        // A swap refused before its start used the child that answered the handshake: it ends here.
        plugin.stop()
        switch result {
        case .success(let swapped): return .success(swapped)
        case .failure(let problem): return refuse(problem, feature: id)
        }
    }

    /// Posts why a build was not swapped in and returns it.
    private func refuse(_ problem: Problem, feature id: String?) -> Result<SwapResult, Problem> {
        let running = id.flatMap { runtime.version(of: $0) }.map { "; v\($0) keeps running" } ?? ""
        let reason =
            problem.code == .sdkMismatch
            ? "the SDK changed: restart the host (\(problem.reason))" : problem.reason
        runtime.post(
            Notice(
                level: .error, code: problem.code,
                message: "\(id ?? problem.subject): new build refused: \(reason)\(running)",
                fix: problem.code == .sdkMismatch ? "restart the host" : problem.fix, feature: id))
        return .failure(problem)
    }

    /// Removes the copies in `directory` made by the processes `madeBy` picks (their pid is part of the name): at
    /// start those of processes that are gone, at the end this process's own.
    private static func removeCopies(in directory: String, madeBy: (Int32) -> Bool) {
        let names = Files.names(in: directory)
        for name in names where name.hasSuffix(".so") {
            let parts = name.dropLast(3).split(separator: "-")
            guard parts.count >= 3, let pid = Int32(parts[parts.count - 2]) else { continue }
            if madeBy(pid) {
                try? Files.remove((directory as NSString).appendingPathComponent(name))
            }
        }
    }
}
