import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappPlatform
import MicroappSDK

/// One feature's library, found by name for `solo` and `preview`: only `lib<Feature>.so` is loaded (built first,
/// alone, when run from the repository; one in a --plugins folder wins), and the other features are known by name
/// only, for stub screens. `solo` may start it in a feature-host child on its own mocks instead, where its placement
/// says so.
struct FeatureLibrary {
    /// The loaded library: an image in this process, or a child running the feature on its mocks.
    let plugin: any LoadedPlugin
    /// The feature it registered, when it is loaded in this process; nil in a child.
    let feature: (any Feature.Type)?
    /// Display names of the features that are not loaded, by route scheme (`auth` → `Auth`).
    let others: [String: String]
    /// The start-up build's failure, when it was built first and that failed (the library built before loaded).
    var buildFailure: Notice?
    /// Where the feature runs and why (`--isolation`, where the library was found, its folder's lock).
    var placement: FeaturePlacement
    /// How far the host trusts the library (where it was found, its folder's lock).
    var trust: FeatureTrust

    /// The child's zygote-less log, when the feature runs in a child.
    var isolationLog: IsolationLog?

    /// The Swift type name of the feature (`CharactersFeature`), for messages; its display name in a child.
    var typeName: String { feature.map { String(describing: $0) } ?? plugin.manifest.displayName }

    /// `load`, with a refusal reported on stderr (or as JSON) as every command that runs one feature does: nil then.
    @MainActor
    static func loadReporting(
        _ name: String, arguments: Arguments, mocks: [String: String]? = nil
    ) async throws(UsageError) -> FeatureLibrary? {
        switch try await load(name, arguments: arguments, mocks: mocks) {
        case .success(let library): return library
        case .failure(let problem) where problem.code == .mockChoice:
            // A child's answer to the --mock choices: the usage error the in-process check gives.
            throw UsageError(problem.reason, fix: problem.fix)
        case .failure(let problem):
            Console.report([problem])
            return nil
        }
    }

    /// Finds `name` (a folder in Plugins/, a library's name, a feature id or display name; any case), builds it
    /// when run from the repository, and loads it; with `mocks` (`solo`'s choices), a library found by its file
    /// name that `--isolation` puts in a process starts in a sandboxed child on its own mocks instead (a name that is
    /// only a feature id is looked up by loading the libraries here). Throws when no feature has that name; returns
    /// the problem when the library cannot be built, loaded or registered. The build, lock hashes and dlopen run off
    /// the main actor.
    @MainActor
    static func load(
        _ name: String, arguments: Arguments, mocks: [String: String]? = nil
    ) async throws(UsageError) -> Result<FeatureLibrary, Diagnostic> {
        let locations = PluginLocations.current()
        let folders = pluginFolders(in: locations.repository, environment: arguments.environment)
        let folder = folders.first { $0.lowercased() == name.lowercased() }
        let directories = try locations.directories(adding: arguments.values("--plugins"))
        let wanted = Set([name.lowercased(), folder?.lowercased()].compactMap { $0 })
        // A folder named with --plugins says which build to run: its library wins over the one beside the executable,
        // which is then not built either.
        let explicit = PluginSet.discover(in: arguments.values("--plugins"))
        let environment = arguments.environment
        var buildFailure: Notice?
        if let folder, !explicit.contains(where: { wanted.contains(stem(of: $0).lowercased()) }),
            !arguments.flag("--no-build"), locations.repository != nil
        {
            buildFailure = await BlockingWork.run {
                PluginBuilder(locations: locations, environment: environment).build(feature: folder)
            }
        }
        let (beside, leftOver) = locations.libraries(
            in: [locations.executableDirectory.path], environment: arguments.environment)
        let isWanted = { (file: String) in wanted.contains(stem(of: file).lowercased()) }
        if let leftOver, !explicit.contains(where: isWanted), leftOver.names.contains(where: isWanted) {
            throw UsageError(leftOver.message, fix: leftOver.fix)
        }
        let files = explicit + beside
        let choice = try RunPolicy.isolationChoice(arguments)
        let sandbox = SandboxCheck.here(
            allowingUnsandboxed: arguments.flag("--allow-unsandboxed"), environment: arguments.environment)
        let image: PluginImage
        let report: PluginSet.LoadReport
        // What the library's folder lock says, for where it runs.
        let lock: (String) -> LibraryTrust.Lock
        if let file = files.first(where: { wanted.contains(stem(of: $0).lowercased()) }) {
            let history = LockHistory(environment: arguments.environment)
            let locks = await BlockingWork.run { PluginSet.checkLocks([file], lockHistory: history) }
            if let problem = locks.problems.first { return .failure(problem) }
            let decision = RunPolicy.decisions(
                for: [file], choice: choice, locks: locks.lock(of:), locations: locations, sandbox: sandbox)[file]
            if let mocks, let decision, decision.mode == .process {
                let others = otherNames(folders + files.map(stem(of:)), besides: nil)
                return await launchAlone(
                    file, copy: locks.copies[file], decision: decision, sandbox: sandbox, mocks: mocks,
                    others: others, buildFailure: buildFailure,
                    trust: locations.trust(of: file, lock: locks.lock(of: file)).level,
                    arguments: arguments)
            }
            report = await PluginSet.loadOffActor(locks.only { _ in true }, screening: nil).report
            lock = locks.lock(of:)
            guard let loaded = report.images.first else {
                return .failure(
                    report.problems.first
                        ?? Diagnostic(.loadFailed, subject: file, reason: "it did not load", fix: "rebuild it"))
            }
            image = loaded
        } else {
            // No file by that name: the name may be a feature id or display name that differs from the file's. Under
            // solo, the libraries placed in a process are asked in children on their mocks, never mapped here.
            let history = LockHistory(environment: arguments.environment)
            let locks = await BlockingWork.run { PluginSet.checkLocks(files, lockHistory: history) }
            let decisions = RunPolicy.decisions(
                for: locks.allowed, choice: choice, locks: locks.lock(of:), locations: locations, sandbox: sandbox)
            let isolated = mocks == nil ? [] : locks.allowed.filter { decisions[$0]?.mode == .process }
            report = await PluginSet.loadOffActor(locks.only { !isolated.contains($0) }, screening: nil).report
            lock = locks.lock(of:)
            let named = { (manifest: FeatureManifest) in
                manifest.id.lowercased() == name.lowercased() || manifest.displayName.lowercased() == name.lowercased()
            }
            let matching = report.images.first { named($0.manifest) }
            if matching == nil, let mocks {
                let others = otherNames(folders + files.map(stem(of:)), besides: nil)
                for file in isolated {
                    guard let decision = decisions[file],
                        case .success(let library) = await launchAlone(
                            file, copy: locks.copies[file], decision: decision, sandbox: sandbox, mocks: mocks,
                            others: others, buildFailure: buildFailure,
                            trust: locations.trust(of: file, lock: locks.lock(of: file)).level,
                            arguments: arguments)
                    else { continue }
                    if named(library.plugin.manifest) { return .success(library) }
                    (library.plugin as? IsolatedPlugin)?.stop()
                }
            }
            guard let matching else {
                throw unknown(name, folder: folder, folders: folders, loaded: report.images, in: directories)
            }
            image = matching
        }
        let feature: any Feature.Type
        switch PluginLoader.register(image) {
        case .success(let registered): feature = registered
        case .failure(let problem): return .failure(problem)
        }
        let others = otherNames(folders + files.map(stem(of:)), besides: image.manifest.id)
        buildFailure?.feature = image.manifest.id
        let trust = locations.trust(of: image.path, lock: lock(image.path))
        let placement = FeaturePlacement(plugin: image, decision: IsolationDecision.decide(choice, for: trust))
        return .success(
            FeatureLibrary(
                plugin: image, feature: feature, others: others, buildFailure: buildFailure, placement: placement,
                trust: trust.level))
    }

    /// Starts `file`, decided to run isolated, alone in a sandboxed child on its mocks (`mocks`: the `--mock`
    /// choices): refused when this kernel lacks part of the sandbox without `--allow-unsandboxed`, or when the file
    /// is not a library this host runs, before any child starts.
    @MainActor
    private static func launchAlone(
        _ file: String, copy: LibraryCopy?, decision: IsolationDecision, sandbox: SandboxCheck,
        mocks: [String: String], others: [String: String], buildFailure: Notice?, trust: FeatureTrust,
        arguments: Arguments
    ) async -> Result<FeatureLibrary, Diagnostic> {
        if let refusal = sandbox.refusal(of: file, decision) { return .failure(refusal) }
        // What the copy the lock check read shows without being mapped: the bytes the child will map.
        let inspected = await BlockingWork.run { () -> Diagnostic? in
            guard let copy else { return nil }
            guard case .failure(let problem) = PluginLoader.inspectFile(copy.path) else { return nil }
            return copy.naming(problem)
        }
        if let inspected { return .failure(inspected) }
        // One child: a zygote would cost a process start of its own.
        let log = IsolationLog(environment: arguments.environment, allowingUnsandboxed: sandbox.unsandboxed)
        let network = (try? RunPolicy.capabilities(arguments))?.allowed.contains(.network) ?? false
        switch await IsolatedPlugin.launch(file, prepared: copy, log: log, mocks: mocks, allowingNetwork: network) {
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
    /// (`FeatureList.features(in:)`).
    static func pluginFolders(in repository: URL?, environment: HostEnvironment) -> [String] {
        repository.map { FeatureList.features(in: $0, environment: environment) } ?? []
    }

    /// `Auth` for `/…/libAuth.so`.
    static func stem(of path: String) -> String {
        let file = (path as NSString).lastPathComponent
        return String(file.dropFirst(3).dropLast(3))
    }

    private static func unknown(
        _ name: String, folder: String?, folders: [String], loaded: [PluginImage], in directories: [String]
    ) -> UsageError {
        if let folder {
            return UsageError(
                "Plugins/\(folder) has no library yet",
                fix:
                    "build it with `swift build --product \(folder)` (or run microapp without --no-build)"
            )
        }
        let inRepository = folders.isEmpty ? "none" : folders.joined(separator: ", ")
        let libraries = loaded.map { "\($0.manifest.id) (\($0.manifest.displayName))" }
        return UsageError(
            "no feature is called '\(name)'",
            fix:
                "use one of the features in Plugins/: \(inRepository); or of the libraries loaded from \(directories.joined(separator: ", ")): \(libraries.isEmpty ? "none" : libraries.joined(separator: ", "))"
        )
    }
}
