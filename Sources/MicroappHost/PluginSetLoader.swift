import MicroappCore
import MicroappDevLoop
import MicroappIsolation
import MicroappLoading
import MicroappPlatform
import MicroappSDK

/// What a command asks of the loader, every input a value: the loader reads no option, variable or clock itself.
package struct PluginSetRequest: Sendable {
    /// Where the executable, its build folder and its repository are.
    package var locations: PluginLocations
    /// The host's environment: where the lock history is, what a child's environment is made from, which features
    /// a test build shows (`MICROAPP_TEST_FEATURES`).
    package var environment: HostEnvironment
    /// The folders to load from, checked and without repeats (`PluginLocations.directories(adding:)`).
    package var directories: [String]
    /// Whether the repository's stale plugins are built first (run from the repository, without `--no-build`).
    package var buildFirst = false
    /// Libraries the supervisor turned off after they crashed the app, by canonical full path (`--skip-library`).
    package var skippedLibraries: Set<String> = []
    /// `--isolation`.
    package var isolation: IsolationChoice = .auto
    /// The resolver's rules (capabilities, owners, reserved names, grant rules and `--grant`s).
    package var rules = ResolutionRules()
    /// The `--grant`s, whose keys must be offered by someone.
    package var grants: [GrantOption] = []
    /// What this kernel's sandbox lacks and whether `--allow-unsandboxed` lets isolated features run without it.
    package var sandbox = SandboxCheck(missing: [], allowsUnsandboxed: false)
    /// How in-process libraries are tried in a child first (nil: `--no-probe`, loaded without).
    package var screening: PluginScreening?
    /// Where unchanged libraries' checked copies are kept between starts (`LibraryStore`); nil copies each afresh.
    package var store: LibraryStore?
    /// False for the commands that only describe: a library its probe record describes is not mapped.
    package var mapsDescribed = true
    /// `--only`: the feature ids kept, or empty for all.
    package var only: [String] = []
    /// Whether children are likely (`--isolation process`, or `auto` with `--plugins` folders): the template process
    /// then starts before the lock checks, as it takes longest to be ready.
    package var expectsChildren = false
    /// Whether isolated children fork from a template process (false: `MICROAPP_ZYGOTE=0`, each a process start).
    package var usesZygote = true
    /// Whether features start after the first frame, but the one it shows (`run`, unless `--strict`): an isolated
    /// library a sandboxed child described before (its manifest in the probe cache, from these same bytes) is handed
    /// over without its child, which starts with its feature; an in-process feature's Root is made then.
    package var startsLate = false
    /// The route the first frame opens (`--open`, else the host's home), when features start late: the isolated
    /// feature the router shows there forks its child while the rest loads (`PluginSetLoader.prepareFirstScreen`).
    package var firstScreen: String?
    /// The executable that hosts an isolated feature (`microapp feature-host`): this one, unless a test names one.
    package var featureHost = IsolatedLaunch.executable
    /// Told what people should see on the way (a command that only describes prints it; `run` tells its front end).
    package var notify: (@MainActor @Sendable (LoadNotice) -> Void)?

    /// A request to load the libraries in `directories`, beside the executable `locations` describes, in the host's
    /// `environment`.
    package init(locations: PluginLocations, directories: [String], environment: HostEnvironment) {
        self.locations = locations
        self.directories = directories
        self.environment = environment
    }
}

/// What the loader tells on the way, in the order it happens.
package enum LoadNotice: Sendable {
    /// Libraries of the build folder left by features whose folder is gone: not loaded.
    case leftover(LeftoverLibraries)
    /// What did not stop a library from loading but should be looked at.
    case warnings([Problem])
}

/// The loading pipeline every command shares: find → screen (lock check) → place → load (in this process or in
/// sandboxed children) → dedupe → `--only` → resolve. Each step is a function of values, so a test drives one at a
/// time; `load` runs them in order, overlapping what may overlap (the template process, the services, the children).
package enum PluginSetLoader {
    /// The libraries a request finds: built first when asked, leftovers and libraries turned off left out.
    package struct Found: Sendable {
        /// The library files to screen, in order.
        package var paths: [String]
        /// Libraries of the build folder not loaded because their feature folder is gone.
        package var leftover: LeftoverLibraries?
        /// The start-up build's failure (older libraries load).
        package var buildFailure: Notice?
    }

    /// Where each screened library goes, decided before any is opened or started.
    package struct Placed: Sendable {
        /// The lock check of every library found.
        package var locks: PluginSet.LockCheck
        /// Where each library's feature runs and why, by path.
        package var decisions: [String: IsolationDecision]
        /// How far the host trusts each library, by path.
        package var trust: [String: FeatureTrust]
        /// Libraries decided `process` that this kernel cannot sandbox (without `--allow-unsandboxed`).
        package var refused: [Problem]
        /// The libraries to start in sandboxed children.
        package var isolated: [String]
        /// The libraries to load into this process, with their copies.
        package var inProcess: PluginSet.LockCheck { locks.only { decisions[$0]?.mode != .process } }
    }

    /// What loading gave: images in this process, children, and what went wrong.
    package struct Loaded {
        /// The libraries loaded into this process.
        package var images: [PluginImage]
        /// The libraries running in sandboxed children.
        package var isolated: [IsolatedPlugin] = []
        /// Where the children's printed lines go.
        package var log: IsolationLog?
        /// What the children started now registered at their handshake, for the probe cache.
        package var handshakes: [(copy: LibraryCopy, description: LibraryDescription)] = []
        /// Lock, sandbox, load and launch problems.
        package var problems: [Problem]
        /// Lock, load and probe-cache warnings.
        package var warnings: [Problem]

        /// What loading `images` and starting `isolated` (printing to `log`) gave.
        package init(
            images: [PluginImage], isolated: [IsolatedPlugin] = [], log: IsolationLog? = nil,
            problems: [Problem] = [], warnings: [Problem] = []
        ) {
            self.images = images
            self.isolated = isolated
            self.log = log
            self.problems = problems
            self.warnings = warnings
        }

        /// Every loaded plugin: the images, then the children.
        package var plugins: [any LoadedPlugin] { images as [any LoadedPlugin] + isolated }

        /// Ends the children (none of their features started).
        @MainActor
        package func endIsolated() { IsolatedPlugin.endAll(isolated, log: log) }

        /// A feature loaded from two libraries keeps the one in this process (or the first child); each child of a
        /// feature already loaded is ended, with a `duplicate-feature` problem.
        @MainActor
        package func deduplicated() -> Loaded {
            var loaded = self
            let ids = Set(images.map(\.manifest.id))
            for plugin in isolated where ids.contains(plugin.manifest.id) {
                plugin.end()
                loaded.problems.append(PluginSetLoader.duplicate(plugin))
            }
            loaded.isolated.removeAll { ids.contains($0.manifest.id) }
            return loaded
        }

        /// Only the features `only` names (all when empty); children left out are ended. A name no loaded feature
        /// has is a usage problem listing those that are (the caller ends the children).
        @MainActor
        package func keeping(only: [String]) throws(Problem) -> Loaded {
            guard !only.isEmpty else { return self }
            let known = Set(images.map(\.manifest.id) + isolated.map(\.manifest.id))
            if let id = only.first(where: { !known.contains($0) }) {
                throw Problem.usage(
                    "--only \(id): no loaded plugin has that id",
                    fix: "use one of: \(known.sorted().joined(separator: ", "))")
            }
            var loaded = self
            loaded.images = images.filter { only.contains($0.manifest.id) }
            isolated.filter { !only.contains($0.manifest.id) }.forEach { $0.end() }
            loaded.isolated = isolated.filter { only.contains($0.manifest.id) }
            return loaded
        }
    }

    /// Loads and resolves what `request` names against the container `openServices` opens (while the libraries
    /// load). Throws a usage problem for an `--only` or `--grant` that names nothing loaded or offered, or the
    /// services' own; every child started is ended before it throws.
    @MainActor
    package static func load(
        _ request: PluginSetRequest, openServices: @escaping @MainActor () async -> Result<Container, Problem>
    ) async throws(Problem) -> LoadedPluginSet {
        // Whether children get namespaces is tried in a child of its own (milliseconds), off the actor: from the start
        // when children are expected, beside the lock checks, else once some are placed.
        let variables = request.environment.variables
        let namespacesTried = { Task { await BlockingWork.run { ProcessNamespaces.notice(variables) } } }
        let namespacesEarly = request.expectsChildren ? namespacesTried() : nil
        // The services open (SQLite, files: milliseconds the first frame need not wait for) on the main actor while the
        // libraries are found, checked, loaded and their children started, off it.
        let opening = Task { @MainActor in await openServices() }
        let found = await find(request)
        if let leftover = found.leftover { request.notify?(.leftover(leftover)) }
        // The template forked before main (for children and probes) is ready now; one started instead takes longest
        // to be ready (a process start): when children are expected, it starts now, beside the lock checks.
        let early = request.usesZygote && request.featureHost == IsolatedLaunch.executable ? Zygote.early() : nil
        let earlyZygote: Task<Zygote?, Never>?
        if let early {
            earlyZygote = Task { early }
        } else if request.expectsChildren {
            earlyZygote = Task { await startZygote(request) }
        } else {
            earlyZygote = nil
        }
        // A library new to the probe cache is probed in a child forked from that template, not a process start.
        var screening = request.screening
        screening?.probe.zygote = early
        let locks = await screen(found.paths, environment: request.environment, store: request.store)
        let placed = place(locks, request)
        let launching =
            placed.isolated.isEmpty
            ? nil
            : Task { @MainActor in
                let zygote = if let earlyZygote { await earlyZygote.value } else { await startZygote(request) }
                return await launchIsolated(
                    locks.copies(of: placed.isolated), zygote: zygote, featureHost: request.featureHost,
                    allowingNetwork: request.rules.capabilities.allowed.contains(.network),
                    environment: request.environment, allowingUnsandboxed: request.sandbox.unsandboxed,
                    described: request.startsLate ? request.screening?.cache : nil)
            }
        // The child of the feature the first screen shows forks as soon as that feature is known, while the rest loads.
        let firstScreen = launching.map { launching in
            Task { @MainActor in
                await prepareFirstScreen(launching.value.isolated, opening: request.firstScreen) {
                    (try? await opening.value.get()).map(isSignedIn) ?? false
                }
            }
        }
        let namespaces = placed.isolated.isEmpty ? nil : (namespacesEarly ?? namespacesTried())
        let inProcess = await loadInProcess(placed, screening: screening, mapping: request.mapsDescribed)
        // Without children, the template is done once the probes are.
        if placed.isolated.isEmpty, let earlyZygote {
            Task { if let zygote = await earlyZygote.value { await BlockingWork.run { zygote.stop() } } }
        }
        request.notify?(.warnings(inProcess.warnings))
        let launched = await launching?.value
        var loaded = inProcess
        loaded.isolated = launched?.isolated ?? []
        loaded.log = launched?.log
        loaded.problems += launched?.problems ?? []
        // What a child registered from bytes the cache has no record of is kept for the next start.
        let known = request.screening?.cache
        let handshakes = (launched?.handshakes ?? []).filter {
            known?.description(of: $0.copy.original, sha256: $0.copy.sha256) == nil
        }
        if !handshakes.isEmpty, let file = known?.file {
            await BlockingWork.run {
                var cache = ProbeCache(file: file)
                for (copy, description) in handshakes {
                    cache.recordHandshake(description, for: copy.original, sha256: copy.sha256)
                }
                cache.save()
            }
        }
        // Once per run: children that see every process in /proc are said to, never passed off as isolated.
        if launched?.isolated.isEmpty == false, let notice = await namespaces?.value {
            loaded.warnings.append(notice)
        }
        loaded = loaded.deduplicated()
        await firstScreen?.value
        do throws(Problem) {
            loaded = try loaded.keeping(only: request.only)
            let container = try await opening.value.get()
            let set = try resolve(loaded, placed: placed, found: found, container: container, request: request)
            request.notify?(.warnings(set.resolution.warnings))
            return set
        } catch {
            loaded.endIsolated()
            throw error
        }
    }

    /// Step 1: builds the repository's stale plugins when asked (on a thread of its own: seconds, minutes on a cold
    /// build), then lists the libraries, less leftovers and those the supervisor turned off.
    package static func find(_ request: PluginSetRequest) async -> Found {
        var buildFailure: Notice?
        if request.buildFirst && request.locations.repository != nil {
            let (locations, environment) = (request.locations, request.environment)
            buildFailure = await BlockingWork.run {
                StalePlugins(locations: locations, environment: environment).refresh()
            }
        }
        let (found, leftover) = request.locations.libraries(in: request.directories, environment: request.environment)
        // Another library of the same file name in another folder is another plugin and stays.
        let skipped = request.skippedLibraries
        let paths = skipped.isEmpty ? found : found.filter { !skipped.contains(FileFacts.canonicalPath($0)) }
        return Found(paths: paths, leftover: leftover, buildFailure: buildFailure)
    }

    /// Step 2: each library read once into a private copy and checked against its folder's lock, off the actor (the
    /// folders that had one are recorded where `environment` keeps state). With a `store`, a library unchanged since
    /// an earlier start is neither read nor hashed: its stored copy loads.
    package static func screen(
        _ paths: [String], environment: HostEnvironment, store: LibraryStore? = nil
    ) async -> PluginSet.LockCheck {
        let history = LockHistory(environment: environment)
        return await BlockingWork.run { PluginSet.checkLocks(paths, lockHistory: history, store: store) }
    }

    /// Step 3: where each library the locks let through goes (pure: facts in, decisions out).
    package static func place(_ locks: PluginSet.LockCheck, _ request: PluginSetRequest) -> Placed {
        let decisions = PlacementPolicy.decisions(
            for: locks.allowed, choice: request.isolation, locks: locks.lock(of:), locations: request.locations,
            sandbox: request.sandbox)
        let trust = PlacementPolicy.trust(for: locks.allowed, locks: locks.lock(of:), locations: request.locations)
        let refused = locks.allowed.compactMap { path in
            decisions[path].flatMap { request.sandbox.refusal(of: path, $0) }
        }
        let isolated = locks.allowed.filter {
            decisions[$0]?.mode == .process && !refused.map(\.subject).contains($0)
        }
        return Placed(locks: locks, decisions: decisions, trust: trust, refused: refused, isolated: isolated)
    }

    /// Forks now the child of the feature among `isolated` (known from their records) that a first frame opening `url`
    /// shows, as the router would place it: its sandbox, load and handshake then overlap the services' opening, the
    /// resolver and the runtime's start instead of following them. Whether the person is signed in (`signedIn`, once
    /// the services are open) is asked only of a route that needs a session.
    @MainActor
    static func prepareFirstScreen(
        _ isolated: [IsolatedPlugin], opening url: String?, signedIn: () async -> Bool
    ) async {
        let candidates = isolated.filter(\.startsWithFeature)
        let table = RouteTable(candidates.map(\.manifest))
        guard let url, let match = table.match(url) else { return }
        var router = Router(table: table)
        _ = router.open(url, signedIn: match.entry.declaration.requiresSession ? await signedIn() : true)
        guard let id = router.top?.feature else { return }
        candidates.first { $0.manifest.id == id }?.prepareEarly()
    }

    /// Whether `container` holds a session: someone is signed in.
    @MainActor
    static func isSignedIn(_ container: Container) -> Bool {
        container.property(.session(access: .readWrite))?.value != nil
    }

    /// Step 4a: the in-process libraries loaded here (new or changed ones tried in a child process first, verdicts
    /// cached), off the actor; the problems and warnings of the whole lock check and of the placement come along.
    /// `mapping` false (the inspection commands): a library its probe record describes is described, not mapped.
    package static func loadInProcess(
        _ placed: Placed, screening: PluginScreening?, mapping: Bool = true
    ) async -> Loaded {
        let (report, screening) = await PluginSet.loadOffActor(
            placed.inProcess, screening: screening, mapping: mapping)
        if let cache = screening?.cache { await BlockingWork.run { cache.save() } }
        let locks = placed.locks
        return Loaded(
            images: report.images, problems: locks.problems + placed.refused + report.problems,
            warnings: locks.warnings + report.warnings + (screening?.cache.distrust.map { [$0] } ?? []))
    }

    /// Step 5: resolves the loaded features against `container`'s offers under the request's rules, a trusted lock's
    /// grants added; refuses a `--grant` of a key nobody offers.
    @MainActor
    package static func resolve(
        _ loaded: Loaded, placed: Placed, found: Found, container: Container, request: PluginSetRequest
    ) throws(Problem) -> LoadedPluginSet {
        let plugins = loaded.plugins
        let provided = plugins.flatMap { $0.manifest.provides.map(\.key) }
        if let problem = PlacementPolicy.ungranted(
            request.grants, offered: Set(container.offers.keys).union(provided))
        {
            throw problem
        }
        var rules = request.rules
        // A trusted lock's entry grants its library's feature more by name (an ignored lock was not read).
        for plugin in plugins {
            for key in placed.locks.grants[plugin.path] ?? [] { rules.grants.grant(key, to: plugin.manifest.id) }
        }
        let resolution = DependencyResolver.resolve(
            plugins.map {
                Candidate(
                    manifest: $0.manifest, path: $0.path, trust: placed.trust[$0.path] ?? .untrusted,
                    sandboxed: request.sandbox.confines($0))
            },
            hostOffers: container.offers, rules: rules)
        var set = LoadedPluginSet(
            images: loaded.images, container: container, resolution: resolution,
            problems: loaded.problems + resolution.problems, warnings: loaded.warnings + resolution.warnings,
            leftover: found.leftover, buildFailure: found.buildFailure, isolation: placed.decisions)
        set.isolated = loaded.isolated
        set.isolationLog = loaded.log
        set.startsLate = request.startsLate
        return set
    }

    /// Step 4b: each library in a feature-host child of its own, started side by side; the host maps none of them. A
    /// second library of a feature already started is refused. With `described` (the probe cache), a library a child
    /// described before from the same bytes is handed over without a child: its child starts with its feature.
    @MainActor
    private static func launchIsolated(
        _ copies: [LibraryCopy], zygote: Zygote?, featureHost: String, allowingNetwork: Bool,
        environment: HostEnvironment, allowingUnsandboxed: Bool, described: ProbeCache? = nil
    ) async -> Loaded {
        let log = IsolationLog(zygote: zygote, environment: environment, allowingUnsandboxed: allowingUnsandboxed)
        var plugins: [IsolatedPlugin] = []
        var problems: [Problem] = []
        // What the copy shows without being mapped (not a shared object, another SDK) is refused here, as
        // in-process, without a child; the child maps that same copy.
        let inspected = await BlockingWork.run {
            copies.map { copy in (copy: copy, file: PluginLoader.inspectFile(copy.path).mapError(copy.naming)) }
        }
        let launches = inspected.map { copy, file in
            Task { @MainActor () -> (Result<IsolatedPlugin, Problem>, LibraryDescription?) in
                let version: SDKVersion
                switch file {
                case .failure(let problem): return (.failure(problem), nil)
                case .success(let read): version = read
                }
                if let known = described?.description(of: copy.original, sha256: copy.sha256) {
                    let plugin = IsolatedPlugin.described(
                        copy, manifest: known.manifest, executable: featureHost, log: log,
                        allowingNetwork: allowingNetwork)
                    return (.success(plugin), nil)
                }
                let launched = await IsolatedPlugin.launch(
                    copy.original, prepared: copy, executable: featureHost, log: log,
                    allowingNetwork: allowingNetwork)
                // What the child registered is remembered: the next start needs no child before its first frame.
                let handshake = try? launched.get().manifest
                return (launched, handshake.map { LibraryDescription(manifest: $0, sdkVersion: version) })
            }
        }
        var handshakes: [(copy: LibraryCopy, description: LibraryDescription)] = []
        for (index, launch) in launches.enumerated() {
            let (result, handshake) = await launch.value
            if let handshake { handshakes.append((inspected[index].copy, handshake)) }
            switch result {
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
        var launched = Loaded(images: [], isolated: plugins, log: log, problems: problems)
        launched.handshakes = handshakes
        return launched
    }

    /// A template process started to fork every feature's child, when none was forked before main (`load` takes
    /// that one): a fork instead of a process start each. Nil (each child is started afresh) when the request says
    /// so (`MICROAPP_ZYGOTE=0`), or when it cannot start.
    private static func startZygote(_ request: PluginSetRequest) async -> Zygote? {
        guard request.usesZygote else { return nil }
        let variables = ChildLaunch.featureEnvironment(
            request.environment, allowingUnsandboxed: request.sandbox.unsandboxed)
        return try? await BlockingWork.run { () throws(SystemCallError) in
            try Zygote.start(executable: request.featureHost, environment: variables)
        }
    }

    /// The problem of a second library of a feature already loaded.
    package static func duplicate(_ plugin: IsolatedPlugin) -> Problem {
        Problem(
            .duplicateFeature, subject: plugin.path,
            reason: "feature '\(plugin.manifest.id)' is already loaded from another library",
            fix: "remove one of the two libraries")
    }
}
