import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappPlatform
import MicroappSDK

/// Everything the inspect and run commands share: find, load, filter and resolve the plugins.
struct LoadedPluginSet {
    let images: [PluginImage]
    /// The libraries running in sandboxed children (`--isolation process`), instead of `images`.
    var isolated: [IsolatedPlugin] = []
    /// Where isolated features' printed lines go, once the runtime is there.
    var isolationLog: IsolationLog?
    let container: Container
    let resolution: Resolution
    /// Files that could not load, then resolver problems.
    let problems: [Diagnostic]
    /// What did not stop a library from loading but should be looked at (a folder whose lock is gone).
    let warnings: [Diagnostic]
    /// Libraries of the repository's build folder that were not loaded because their feature folder is gone.
    let leftOver: LeftOverLibraries?
    /// The start-up build's failure, when the plugins were built first and that failed (older libraries loaded).
    var buildFailure: Notice?

    /// Finds, screens and loads the plugins the command line names, and resolves them against the container
    /// `host` opens for `services` (`.live` for `run`, `.inspection` for the commands that only describe).
    @MainActor
    static func load(
        _ arguments: Arguments, host: HostConfiguration, directories extra: [String]? = nil,
        services: HostConfiguration.ServicesUse = .inspection
    ) async throws(UsageError) -> LoadedPluginSet {
        let locations = PluginLocations.current()
        var buildFailure: Notice?
        if !arguments.flag("--no-build") && locations.repository != nil {
            // Seconds (minutes on a cold build) of `swift build`: awaited on a thread of its own.
            buildFailure = await BlockingWork.run { PluginBuilder(locations: locations).refresh() }
        }
        let directories = extra ?? locations.directories(adding: arguments.values("--plugins"))
        let (found, leftOver) = locations.libraries(in: directories)
        // The inspect commands say so on stderr; `run` tells its front end.
        if let leftOver, services == .inspection { Console.err(leftOver.note, label: "note") }
        // Libraries the supervisor turned off after they crashed the app, by canonical full path: another library
        // of the same file name in another folder is another plugin and stays.
        let skipped = Set(arguments.values("--skip-library"))
        let paths = skipped.isEmpty ? found : found.filter { !skipped.contains(RecordedState.canonicalPath($0)) }
        // New or changed libraries are loaded in a child process first (verdicts are cached); probes, hashes and
        // dlopen run off the main actor.
        if try Isolation.chosen(by: arguments) == .process {
            return try await loadIsolated(arguments, paths: paths, host: host, services: services, leftOver: leftOver)
        }
        let (report, screening) = await PluginSet.loadOffActor(
            paths, lockHistory: LockHistory(), screening: arguments.flag("--no-probe") ? nil : PluginScreening())
        if let cache = screening?.cache { await BlockingWork.run { cache.save() } }
        if services == .inspection { Console.warn(report.warnings) }
        var images = report.images
        let only = arguments.values("--only")
        if !only.isEmpty {
            let known = Set(images.map(\.manifest.id))
            for id in only where !known.contains(id) {
                throw UsageError(
                    "--only \(id): no loaded plugin has that id",
                    fix: "use one of: \(known.sorted().joined(separator: ", "))")
            }
            images = images.filter { only.contains($0.manifest.id) }
        }
        let container = try await openServices(host, services, arguments)
        let resolution = PluginSet.resolve(images, container: container)
        return LoadedPluginSet(
            images: images, container: container, resolution: resolution,
            problems: report.problems + resolution.problems, warnings: report.warnings, leftOver: leftOver,
            buildFailure: buildFailure)
    }

    /// Each library in a feature-host child of its own, started side by side; the host maps none of them.
    @MainActor
    private static func loadIsolated(
        _ arguments: Arguments, paths: [String], host: HostConfiguration, services: HostConfiguration.ServicesUse,
        leftOver: LeftOverLibraries?
    ) async throws(UsageError) -> LoadedPluginSet {
        let log = IsolationLog()
        var plugins: [IsolatedPlugin] = []
        var problems: [Diagnostic] = []
        let launches = paths.map { path in Task { @MainActor in await IsolatedPlugin.launch(path, log: log) } }
        for launch in launches {
            switch await launch.value {
            case .success(let plugin):
                if plugins.contains(where: { $0.manifest.id == plugin.manifest.id }) {
                    problems.append(
                        Diagnostic(
                            .duplicateFeature, subject: plugin.path,
                            reason: "feature '\(plugin.manifest.id)' is already loaded from another library",
                            fix: "remove one of the two libraries"))
                } else {
                    plugins.append(plugin)
                }
            case .failure(let problem): problems.append(problem)
            }
        }
        let only = arguments.values("--only")
        if !only.isEmpty { plugins = plugins.filter { only.contains($0.manifest.id) } }
        let container = try await openServices(host, services, arguments)
        let resolution = DependencyResolver.resolve(
            plugins.map { Candidate(manifest: $0.manifest, path: $0.path) }, hostOffers: container.offers)
        var set = LoadedPluginSet(
            images: [], container: container, resolution: resolution, problems: problems + resolution.problems,
            warnings: [], leftOver: leftOver)
        set.isolated = plugins
        set.isolationLog = log
        return set
    }

    /// The container `host` opens for `services`.
    @MainActor
    private static func openServices(
        _ host: HostConfiguration, _ services: HostConfiguration.ServicesUse, _ arguments: Arguments
    ) async throws(UsageError) -> Container {
        do {
            return try await host.services(services, arguments)
        } catch let error as any ProblemDescribing {
            throw UsageError(error)
        } catch {
            throw UsageError(
                "the app's services could not be opened: \(error)",
                fix: "this is a bug in microapp: report it with this message")
        }
    }
}

/// How `run` and `solo` start features (`--isolation`): in sandboxed children, or in this process.
enum Isolation: String {
    /// Each feature in a child process of its own.
    case process
    /// Every feature in this process.
    case none

    /// The mode `--isolation` names (`none` when absent).
    static func chosen(by arguments: Arguments) throws(UsageError) -> Isolation {
        guard let value = arguments.value("--isolation") else { return .none }
        guard let mode = Isolation(rawValue: value) else {
            throw UsageError("--isolation \(value): unknown mode", fix: "use --isolation process or --isolation none")
        }
        return mode
    }
}
