import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappPlatform
import MicroappSDK

/// Everything the inspect and run commands share: find, load, filter and resolve the plugins.
struct LoadedPluginSet {
    let images: [PluginImage]
    /// The libraries running in sandboxed children (those `isolation` puts in a process), beside `images`.
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
    /// Where each feature runs and why, by library path (`--isolation`, its origin and its folder's lock).
    var isolation: [String: IsolationDecision] = [:]

    /// Ends the isolated features' children (none was started: the inspection commands only read their manifests),
    /// waiting for each, removes their private and pinned folders and ends the template process. `routes`, `doctor`,
    /// `keys` and `graph` call it on every way out, so nothing they started outlives them.
    @MainActor
    func endIsolated() { IsolatedPlugin.endAll(isolated, log: isolationLog) }

    /// Where the feature of the library at `path` runs and why.
    func isolation(of path: String) -> IsolationDecision {
        isolation[path] ?? IsolationDecision(.inProcess, reason: "not decided")
    }

    /// Finds, screens and loads the plugins the command line names, and resolves them against the container
    /// `host` opens for `services` (`.live` for `run`, `.inspection` for the commands that only describe).
    @MainActor
    static func load(
        _ arguments: Arguments, host: HostConfiguration, directories extra: [String]? = nil,
        services: HostConfiguration.ServicesUse = .inspection
    ) async throws(UsageError) -> LoadedPluginSet {
        let locations = PluginLocations.current()
        // A folder that is not there is a typo: said before anything is built or loaded.
        let directories: [String]
        if let extra {
            try PluginLocations.checkFolders(extra, option: "doctor")
            directories = extra
        } else {
            directories = try locations.directories(adding: arguments.values("--plugins"))
        }
        var buildFailure: Notice?
        if !arguments.flag("--no-build") && locations.repository != nil {
            // Seconds (minutes on a cold build) of `swift build`: awaited on a thread of its own.
            buildFailure = await BlockingWork.run { PluginBuilder(locations: locations).refresh() }
        }
        let (found, leftOver) = locations.libraries(in: directories)
        // The inspect commands say so on stderr; `run` tells its front end.
        if let leftOver, services == .inspection { Console.err(leftOver.note, label: "note") }
        // Libraries the supervisor turned off after they crashed the app, by canonical full path: another library
        // of the same file name in another folder is another plugin and stays.
        let skipped = Set(arguments.values("--skip-library"))
        let paths = skipped.isEmpty ? found : found.filter { !skipped.contains(RecordedState.canonicalPath($0)) }
        // Every library is checked against its folder's lock before it is opened or started, then goes where the
        // decision puts it: in-process libraries are loaded here (new or changed ones tried in a child process first,
        // verdicts cached), the others start in sandboxed children. Hashes, probes and dlopen run off the main actor.
        let choice = try RunPolicy.isolationChoice(arguments)
        var rules = try RunPolicy.rules(arguments, host: host)
        let sandbox = SandboxCheck.here(allowingUnsandboxed: arguments.flag("--allow-unsandboxed"))
        if sandbox.unsandboxed { ChildLaunch.allowUnsandboxed() }
        // The template process takes longest to be ready (a process start): when children are expected, it starts
        // now, beside the lock checks.
        let expectsChildren = choice == .process || (choice == .auto && !arguments.values("--plugins").isEmpty)
        let earlyZygote = expectsChildren ? Task { await startZygote() } : nil
        // Libraries unchanged since an earlier start are neither read nor hashed: their stored copies load.
        let locks = await BlockingWork.run {
            PluginSet.checkLocks(paths, lockHistory: LockHistory(), store: LibraryStore.inCacheFolder())
        }
        let decisions = RunPolicy.decisions(
            for: locks.allowed, choice: choice, locks: locks.lock(of:), locations: locations, sandbox: sandbox)
        let trust = RunPolicy.trust(for: locks.allowed, locks: locks.lock(of:), locations: locations)
        let refused = locks.allowed.compactMap { path in decisions[path].flatMap { sandbox.refusal(of: path, $0) } }
        let isolatedPaths = locks.allowed.filter {
            decisions[$0]?.mode == .process && !refused.map(\.subject).contains($0)
        }
        let launching =
            isolatedPaths.isEmpty
            ? nil
            : Task { @MainActor in
                let zygote = if let earlyZygote { await earlyZygote.value } else { await startZygote() }
                return await launchIsolated(
                    locks.copies(of: isolatedPaths), zygote: zygote,
                    allowingNetwork: rules.capabilities.allowed.contains(.network))
            }
        if isolatedPaths.isEmpty, let earlyZygote { Task { await earlyZygote.value?.stop() } }
        // The services open while the children start (SQLite, files: milliseconds the first frame need not wait for).
        let opening = Task { @MainActor () -> Result<Container, UsageError> in
            do throws(UsageError) {
                return .success(try await openServices(host, services, arguments))
            } catch {
                return .failure(error)
            }
        }
        let (report, screening) = await PluginSet.loadOffActor(
            locks.only { decisions[$0]?.mode != .process },
            screening: arguments.flag("--no-probe") ? nil : PluginScreening(), mapping: services != .inspection)
        if let cache = screening?.cache { await BlockingWork.run { cache.save() } }
        let loadWarnings = locks.warnings + report.warnings + (screening?.cache.distrust.map { [$0] } ?? [])
        if services == .inspection { Console.warn(loadWarnings) }
        var images = report.images
        let launched = await launching?.value
        var isolated = launched?.plugins ?? []
        var problems = locks.problems + refused + report.problems + (launched?.problems ?? [])
        // The same feature from two libraries: the in-process one (or the first child) stays.
        for plugin in isolated where images.contains(where: { $0.manifest.id == plugin.manifest.id }) {
            plugin.end()
            problems.append(duplicate(plugin))
        }
        isolated.removeAll { plugin in images.contains { $0.manifest.id == plugin.manifest.id } }
        let only = arguments.values("--only")
        if !only.isEmpty {
            let known = Set(images.map(\.manifest.id) + isolated.map(\.manifest.id))
            for id in only where !known.contains(id) {
                IsolatedPlugin.endAll(isolated, log: launched?.log)
                throw UsageError(
                    "--only \(id): no loaded plugin has that id",
                    fix: "use one of: \(known.sorted().joined(separator: ", "))")
            }
            images = images.filter { only.contains($0.manifest.id) }
            isolated.filter { !only.contains($0.manifest.id) }.forEach { $0.end() }
            isolated = isolated.filter { only.contains($0.manifest.id) }
        }
        let container: Container
        do throws(UsageError) {
            container = try await opening.value.get()
        } catch {
            IsolatedPlugin.endAll(isolated, log: launched?.log)
            throw error
        }
        let plugins = images as [any LoadedPlugin] + isolated
        do throws(UsageError) {
            let provided = plugins.flatMap { $0.manifest.provides.map(\.key) }
            try RunPolicy.checkGrantedKeys(arguments, offered: Set(container.offers.keys).union(provided))
        } catch {
            IsolatedPlugin.endAll(isolated, log: launched?.log)
            throw error
        }
        // A trusted lock's entry grants its library's feature more by name (an ignored lock was not read).
        for plugin in plugins {
            for key in locks.grants[plugin.path] ?? [] { rules.grants.grant(key, to: plugin.manifest.id) }
        }
        let resolution = DependencyResolver.resolve(
            plugins.map {
                Candidate(
                    manifest: $0.manifest, path: $0.path, trust: trust[$0.path] ?? .untrusted,
                    sandboxed: sandbox.confines($0))
            },
            hostOffers: container.offers, rules: rules)
        if services == .inspection { Console.warn(resolution.warnings) }
        var set = LoadedPluginSet(
            images: images, container: container, resolution: resolution, problems: problems + resolution.problems,
            warnings: loadWarnings + resolution.warnings, leftOver: leftOver, buildFailure: buildFailure,
            isolation: decisions)
        set.isolated = isolated
        set.isolationLog = launched?.log
        return set
    }

    /// Each library in a feature-host child of its own, started side by side; the host maps none of them. A second
    /// library of a feature already started is refused.
    @MainActor
    private static func launchIsolated(
        _ copies: [LibraryCopy], zygote: Zygote?, allowingNetwork: Bool
    ) async -> (plugins: [IsolatedPlugin], problems: [Diagnostic], log: IsolationLog) {
        let log = IsolationLog(zygote: zygote)
        var plugins: [IsolatedPlugin] = []
        var problems: [Diagnostic] = []
        // What the copy shows without being mapped (not a shared object, another SDK) is refused here, as
        // in-process, without a child; the child maps that same copy.
        let inspected = await BlockingWork.run {
            copies.map { copy in (copy: copy, file: PluginLoader.inspectFile(copy.path).mapError(copy.naming)) }
        }
        let launches = inspected.map { copy, file in
            Task { @MainActor in
                if case .failure(let problem) = file { return Result<IsolatedPlugin, Diagnostic>.failure(problem) }
                return await IsolatedPlugin.launch(
                    copy.original, prepared: copy, log: log, allowingNetwork: allowingNetwork)
            }
        }
        for launch in launches {
            switch await launch.value {
            case .success(let plugin):
                if plugins.contains(where: { $0.manifest.id == plugin.manifest.id }) {
                    plugin.end()
                    problems.append(duplicate(plugin))
                } else {
                    plugins.append(plugin)
                }
            case .failure(let problem): problems.append(problem)
            }
        }
        return (plugins, problems, log)
    }

    /// The template process that forks every feature's child: a fork instead of a process start each. Nil (each child
    /// is started afresh) with MICROAPP_ZYGOTE=0, or when it cannot start.
    private static func startZygote() async -> Zygote? {
        guard ProcessInfo.processInfo.environment["MICROAPP_ZYGOTE"] != "0" else { return nil }
        return try? await BlockingWork.run { () throws(SystemCallError) in
            try Zygote.start(executable: FeatureHostLaunch.executable, environment: ChildLaunch.featureEnvironment())
        }
    }

    /// The problem of a second library of a feature already loaded.
    private static func duplicate(_ plugin: IsolatedPlugin) -> Diagnostic {
        Diagnostic(
            .duplicateFeature, subject: plugin.path,
            reason: "feature '\(plugin.manifest.id)' is already loaded from another library",
            fix: "remove one of the two libraries")
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
