import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappPlatform
import MicroappSDK

/// One feature's library, found by name for `solo` and `preview`: only `lib<Feature>.so` is loaded (built first,
/// alone, when run from the repository; one in a --plugins folder wins), and the other features are known by name
/// only, for stub screens.
struct FeatureLibrary {
    /// The loaded library.
    let image: PluginImage
    /// The feature it registered.
    let feature: any Feature.Type
    /// Display names of the features that are not loaded, by route scheme (`auth` → `Auth`).
    let others: [String: String]
    /// The start-up build's failure, when it was built first and that failed (the library built before loaded).
    var buildFailure: Notice?
    /// Where the feature runs and why (`--isolation`, where the library was found, its folder's lock).
    var placement: FeaturePlacement

    /// The Swift type name of the feature (`CharactersFeature`), for messages.
    var typeName: String { String(describing: feature) }

    /// `load`, with a refusal reported on stderr (or as JSON) as every command that runs one feature does: nil then.
    @MainActor
    static func loadReporting(_ name: String, arguments: Arguments) async throws(UsageError) -> FeatureLibrary? {
        switch try await load(name, arguments: arguments) {
        case .success(let library): return library
        case .failure(let problem):
            Console.report([problem])
            return nil
        }
    }

    /// Finds `name` (a folder in Plugins/, a library's name, a feature id or display name; any case), builds it
    /// when run from the repository, and loads it. Throws when no feature has that name; returns the problem
    /// when the library cannot be built, loaded or registered. The build, lock hashes and dlopen run off the main
    /// actor.
    @MainActor
    static func load(
        _ name: String, arguments: Arguments
    ) async throws(UsageError) -> Result<FeatureLibrary, Diagnostic> {
        let locations = PluginLocations.current()
        let folders = pluginFolders(in: locations.repository)
        let folder = folders.first { $0.lowercased() == name.lowercased() }
        let directories = locations.directories(adding: arguments.values("--plugins"))
        let wanted = Set([name.lowercased(), folder?.lowercased()].compactMap { $0 })
        // A folder named with --plugins says which build to run: its library wins over the one beside the executable,
        // which is then not built either.
        let explicit = PluginSet.discover(in: arguments.values("--plugins"))
        var buildFailure: Notice?
        if let folder, !explicit.contains(where: { wanted.contains(stem(of: $0).lowercased()) }),
            !arguments.flag("--no-build"), locations.repository != nil
        {
            buildFailure = await BlockingWork.run { PluginBuilder(locations: locations).build(feature: folder) }
        }
        let (beside, leftOver) = locations.libraries(in: [locations.executableDirectory.path])
        let isWanted = { (file: String) in wanted.contains(stem(of: file).lowercased()) }
        if let leftOver, !explicit.contains(where: isWanted), leftOver.names.contains(where: isWanted) {
            throw UsageError(leftOver.message, fix: leftOver.fix)
        }
        let files = explicit + beside
        let choice = try RunPolicy.isolationChoice(arguments)
        let image: PluginImage
        let report: PluginSet.LoadReport
        if let file = files.first(where: { wanted.contains(stem(of: $0).lowercased()) }) {
            report = await PluginSet.loadOffActor([file], screening: nil).report
            guard let loaded = report.images.first else {
                return .failure(
                    report.problems.first
                        ?? Diagnostic(.loadFailed, subject: file, reason: "it did not load", fix: "rebuild it"))
            }
            image = loaded
        } else {
            // No file by that name: the name may be a feature id or display name that differs from the file's.
            report = await PluginSet.loadOffActor(files, screening: nil).report
            let matching = report.images.first {
                $0.manifest.id.lowercased() == name.lowercased()
                    || $0.manifest.displayName.lowercased() == name.lowercased()
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
        var others: [String: String] = [:]
        for other in folders + files.map(stem(of:)) where other.lowercased() != image.manifest.id {
            others[other.lowercased()] = others[other.lowercased()] ?? other
        }
        buildFailure?.feature = image.manifest.id
        let trust = LibraryTrust(origin: locations.origin(of: image.path), lock: report.lock(of: image.path))
        let placement = FeaturePlacement(plugin: image, decision: IsolationDecision.decide(choice, for: trust))
        return .success(
            FeatureLibrary(
                image: image, feature: feature, others: others, buildFailure: buildFailure, placement: placement))
    }

    /// The feature folders in the repository's Plugins/ (those with a Sources folder), sorted.
    static func pluginFolders(in repository: URL?) -> [String] {
        guard let plugins = repository?.appendingPathComponent("Plugins") else { return [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: plugins.path)) ?? []
        return names.filter {
            FileManager.default.fileExists(atPath: plugins.appendingPathComponent("\($0)/Sources").path)
        }.sorted()
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
                    "build it with `swift build --product \(folder) --manifest-cache none` (or run microapp without --no-build)"
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
