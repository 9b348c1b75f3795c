import CommandLineSpec
import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappIsolation
import MicroappLoading
import MicroappPlatform
import MicroappSDK

/// What `solo` and `preview` ask for: one feature by name, every input a value.
package struct FeatureRequest: Sendable {
    /// A folder in Plugins/, a library's name, a feature id or display name; any case.
    package var name: String
    /// Where the executable, its build folder and its repository are.
    package var locations: PluginLocations
    /// The host's environment (its lock history, what its children get, which features a test build shows).
    package var environment: HostEnvironment
    /// The `--plugins` folders as written (a library there wins over the one beside the executable).
    package var pluginsFolders: [String] = []
    /// Whether the feature is built first when run from the repository (no `--no-build`).
    package var buildFirst = false
    /// `--isolation`.
    package var isolation: IsolationChoice = .auto
    /// What this kernel's sandbox lacks and whether `--allow-unsandboxed` lets isolated features run without it.
    package var sandbox = SandboxCheck(missing: [], allowsUnsandboxed: false)
    /// `solo`'s `--mock` choices: with them, a library placed in a process starts in a child on its mocks; nil
    /// (`preview`) loads it here.
    package var mocks: [String: String]?
    /// Whether an isolated child may use the network (`--allow network`).
    package var allowingNetwork = false

    /// A request for the feature called `name`, found around `locations`.
    package init(name: String, locations: PluginLocations, environment: HostEnvironment) {
        self.name = name
        self.locations = locations
        self.environment = environment
    }
}

/// One feature's library, found by name for `solo` and `preview`: only `lib<Feature>.so` is loaded (built first,
/// alone, when run from the repository; one in a --plugins folder wins), and the other features are known by name
/// only, for stub screens. `solo` may start it in a feature-host child on its own mocks instead, where its placement
/// says so.
package struct FeatureLibrary {
    /// The loaded library: an image in this process, or a child running the feature on its mocks.
    package let plugin: any LoadedPlugin
    /// The feature it registered, when it is loaded in this process; nil in a child.
    package let feature: (any Feature.Type)?
    /// Display names of the features that are not loaded, by route scheme (`auth` → `Auth`).
    package let others: [String: String]
    /// The start-up build's failure, when it was built first and that failed (the library built before loaded).
    package var buildFailure: Notice?
    /// Where the feature runs and why (`--isolation`, where the library was found, its folder's lock).
    package var placement: FeaturePlacement
    /// How far the host trusts the library (where it was found, its folder's lock).
    package var trust: FeatureTrust

    /// The child's zygote-less log, when the feature runs in a child.
    package var isolationLog: IsolationLog?

    /// The Swift type name of the feature (`CharactersFeature`), for messages; its display name in a child.
    package var typeName: String { feature.map { String(describing: $0) } ?? plugin.manifest.displayName }

    /// Which libraries may hold the feature asked for, and how to tell it: the one whose file is named so (its
    /// failures are the answer), else every library, told by feature id or display name (failures skipped).
    struct Lookup {
        /// The libraries to screen, in order.
        let candidates: [String]
        /// True when the candidate is the library named so: its problems are returned, not skipped.
        let byFile: Bool
        /// Whether a loaded feature is the one asked for.
        let matches: @Sendable (FeatureManifest) -> Bool
    }

    /// Finds the feature `request` names (a folder in Plugins/, a library's name, a feature id or display name; any
    /// case), builds it when run from the repository, and loads it; with `mocks` (`solo`'s choices), a library that
    /// `--isolation` puts in a process starts in a sandboxed child on its own mocks instead (a name that is only a
    /// feature id is looked up by loading the other libraries here, and starting the isolated ones one by one).
    /// Throws when no feature has that name; returns the problem when the library cannot be built, loaded or
    /// registered. The build, lock hashes and dlopen run off the main actor.
    @MainActor
    package static func load(_ request: FeatureRequest) async throws(Problem) -> Result<FeatureLibrary, Problem> {
        let locations = request.locations
        let name = request.name
        let folders = pluginFolders(in: locations.repository, environment: request.environment)
        let folder = folders.first { $0.lowercased() == name.lowercased() }
        let wanted = Set([name.lowercased(), folder?.lowercased()].compactMap { $0 })
        let isWanted = { (file: String) in wanted.contains(stem(of: file).lowercased()) }
        // A folder named with --plugins says which build to run: its library wins over the one beside the executable,
        // which is then not built either.
        let explicit = PluginSet.discover(in: request.pluginsFolders)
        var buildFailure: Notice?
        if let folder, !explicit.contains(where: isWanted), request.buildFirst, locations.repository != nil {
            let environment = request.environment
            buildFailure = await BlockingWork.run {
                StalePlugins(locations: locations, environment: environment).build(feature: folder)
            }
        }
        let (beside, leftover) = locations.libraries(
            in: [locations.pluginDirectory.path], environment: request.environment)
        if let leftover, !explicit.contains(where: isWanted), leftover.names.contains(where: isWanted) {
            throw Problem.usage(leftover.message, fix: leftover.fix)
        }
        let files = explicit + beside
        let lookup =
            files.first(where: isWanted).map { Lookup(candidates: [$0], byFile: true, matches: { _ in true }) }
            ?? Lookup(
                candidates: files, byFile: false,
                matches: {
                    $0.id.lowercased() == name.lowercased() || $0.displayName.lowercased() == name.lowercased()
                })
        let locks = await PluginSetLoader.screen(lookup.candidates, environment: request.environment)
        if lookup.byFile, let problem = locks.problems.first { return .failure(problem) }
        var plan = PluginSetRequest(locations: locations, directories: [], environment: request.environment)
        plan.isolation = request.isolation
        plan.sandbox = request.sandbox
        let placed = PluginSetLoader.place(locks, plan)
        // Under solo, the libraries placed in a process start in children on their mocks, never mapped here; a refused
        // one (no sandbox here) is refused there, before any child starts.
        let isolated = request.mocks == nil ? [] : locks.allowed.filter { placed.decisions[$0]?.mode == .process }
        let report = await PluginSet.loadOffActor(locks.only { !isolated.contains($0) }, screening: nil).report
        let others = otherNames(folders + files.map(stem(of:)), besides: nil)
        if let image = report.images.first(where: { lookup.matches($0.manifest) }) {
            return register(image, request: request, locks: locks, buildFailure: buildFailure, others: others)
        }
        if let mocks = request.mocks {
            for file in isolated {
                guard let decision = placed.decisions[file] else { continue }
                let started = await launchAlone(
                    file, copy: locks.copies[file], decision: decision, request: request, mocks: mocks,
                    others: others, buildFailure: buildFailure,
                    trust: locations.trust(of: file, lock: locks.lock(of: file)).level)
                switch started {
                case .success(let library) where lookup.matches(library.plugin.manifest): return .success(library)
                case .success(let library): (library.plugin as? IsolatedPlugin)?.stop()
                case .failure(let problem) where lookup.byFile: return .failure(problem)
                case .failure: continue
                }
            }
        }
        guard !lookup.byFile else {
            return .failure(
                report.problems.first
                    ?? Problem(
                        .loadFailed, subject: lookup.candidates[0], reason: "it did not load", fix: "rebuild it"))
        }
        let directories = (try? locations.directories(adding: request.pluginsFolders)) ?? []
        throw unknown(name, folder: folder, folders: folders, loaded: report.images, in: directories)
    }

    /// The library loaded here, its feature registered, with where it runs and how far it is trusted.
    @MainActor
    private static func register(
        _ image: PluginImage, request: FeatureRequest, locks: PluginSet.LockCheck, buildFailure: Notice?,
        others: [String: String]
    ) -> Result<FeatureLibrary, Problem> {
        let feature: any Feature.Type
        switch PluginLoader.register(image) {
        case .success(let registered): feature = registered
        case .failure(let problem): return .failure(problem)
        }
        var buildFailure = buildFailure
        buildFailure?.feature = image.manifest.id
        let trust = request.locations.trust(of: image.path, lock: locks.lock(of: image.path))
        let placement = FeaturePlacement(
            plugin: image, decision: IsolationDecision.decide(request.isolation, for: trust))
        return .success(
            FeatureLibrary(
                plugin: image, feature: feature, others: others.filter { $0.key != image.manifest.id },
                buildFailure: buildFailure, placement: placement, trust: trust.level))
    }

    /// Starts `file`, decided to run isolated, alone in a sandboxed child on its mocks (`mocks`: the `--mock`
    /// choices): refused when this kernel lacks part of the sandbox without `--allow-unsandboxed`, or when the file
    /// is not a library this host runs, before any child starts.
    @MainActor
    private static func launchAlone(
        _ file: String, copy: LibraryCopy?, decision: IsolationDecision, request: FeatureRequest,
        mocks: [String: String], others: [String: String], buildFailure: Notice?, trust: FeatureTrust
    ) async -> Result<FeatureLibrary, Problem> {
        let sandbox = request.sandbox
        if let refusal = sandbox.refusal(of: file, decision) { return .failure(refusal) }
        // What the copy the lock check read shows without being mapped: the bytes the child will map.
        let inspected = await BlockingWork.run { () -> Problem? in
            guard let copy else { return nil }
            guard case .failure(let problem) = PluginLoader.inspectFile(copy.path) else { return nil }
            return copy.naming(problem)
        }
        if let inspected { return .failure(inspected) }
        // One child: a zygote would cost a process start of its own.
        let log = IsolationLog(environment: request.environment, allowingUnsandboxed: sandbox.unsandboxed)
        let launched = await IsolatedPlugin.launch(
            file, prepared: copy, log: log, mocks: mocks, allowingNetwork: request.allowingNetwork)
        switch launched {
        case .success(let plugin):
            var buildFailure = buildFailure
            buildFailure?.feature = plugin.manifest.id
            var library = FeatureLibrary(
                plugin: plugin, feature: nil, others: others.filter { $0.key != plugin.manifest.id },
                buildFailure: buildFailure, placement: FeaturePlacement(plugin: plugin, decision: decision),
                trust: trust)
            library.isolationLog = log
            return .success(library)
        case .failure(let problem): return .failure(problem)
        }
    }

    /// Display names by route scheme of the features in `names` (folders, library stems) but `loaded`.
    private static func otherNames(_ names: [String], besides loaded: String?) -> [String: String] {
        var others: [String: String] = [:]
        for other in names where other.lowercased() != loaded {
            others[other.lowercased()] = others[other.lowercased()] ?? other
        }
        return others
    }

    /// The repository's features, sorted: those its Package.swift declares whose folder in Plugins/ has Sources
    /// (`FeatureList.features(in:environment:)`), those `environment` shows.
    package static func pluginFolders(in repository: URL?, environment: HostEnvironment) -> [String] {
        repository.map { FeatureList.features(in: $0, environment: environment) } ?? []
    }

    /// `Auth` for `/…/libAuth.so` (`PluginFileName`); the file's name for anything else.
    package static func stem(of path: String) -> String {
        PluginFileName.feature(of: path) ?? (path as NSString).lastPathComponent
    }

    private static func unknown(
        _ name: String, folder: String?, folders: [String], loaded: [PluginImage], in directories: [String]
    ) -> Problem {
        if let folder {
            return Problem.usage(
                "Plugins/\(folder) has no library yet",
                fix: "build it with `swift build --product \(folder)` (or run microapp without --no-build)")
        }
        let inRepository = folders.isEmpty ? "none" : folders.joined(separator: ", ")
        let libraries = loaded.map { "\($0.manifest.id) (\($0.manifest.displayName))" }
        let names = folders + loaded.flatMap { [$0.manifest.displayName, $0.manifest.id] }
        let meant = NearMiss.closest(to: name, among: names).map { "did you mean '\($0)'? Otherwise " } ?? ""
        return Problem.usage(
            "no feature is called '\(name)'",
            fix:
                "\(meant)use one of the features in Plugins/: \(inRepository); or of the libraries loaded from \(directories.joined(separator: ", ")): \(libraries.isEmpty ? "none" : libraries.joined(separator: ", "))"
        )
    }
}
