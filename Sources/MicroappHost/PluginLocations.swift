import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappLoading
import MicroappPlatform
import MicroappShipping

/// Where this executable lives, where its plugins are, and the repository it was built from (if any).
package struct PluginLocations: BuildFolders, Sendable {
    /// The folder of the running executable (SwiftPM's build folder when run with `swift run`).
    package let executableDirectory: URL
    /// The repository root, when the executable sits in its `.build`.
    package let repository: URL?
    /// The folder of the host's own plugins: the executable's folder, or an installed app's `plugins/`.
    package let pluginDirectory: URL
    /// `debug` or `release`: the configuration the executable was built with.
    package var configuration: String { executableDirectory.lastPathComponent }

    /// Locations around an executable in `executableDirectory`, built from `repository` (nil: installed), its own
    /// plugins in `pluginDirectory` (by default beside it).
    package init(executableDirectory: URL, repository: URL?, pluginDirectory: URL? = nil) {
        self.executableDirectory = executableDirectory
        self.repository = repository
        self.pluginDirectory = pluginDirectory ?? executableDirectory
    }

    /// The locations of the running executable: its folder, and the repository whose `.build` holds it, if any.
    package static func current() -> PluginLocations {
        let directory = FileFacts.executable.deletingLastPathComponent()
        var candidate = directory
        var repository: URL?
        while candidate.path != "/" {
            if candidate.lastPathComponent == ".build" {
                let root = candidate.deletingLastPathComponent()
                if FileFacts.exists(root.appendingPathComponent("Package.swift").path) { repository = root }
                break
            }
            candidate.deleteLastPathComponent()
        }
        // An installed app (`microapp install`) keeps its plugins in `plugins/` beside its `bin/`.
        let installed = repository == nil ? InstalledLayout.containing(executableFolder: directory) : nil
        return PluginLocations(
            executableDirectory: directory, repository: repository,
            pluginDirectory: installed.map { URL(fileURLWithPath: $0.plugins) })
    }

    /// The plugin folders to load: the host's own (beside the executable), then each `--plugins DIR`; a folder named
    /// again (by another path or through a symlink, e.g. `--plugins .build/debug`) is loaded once, not reported as
    /// duplicates.
    /// A named folder that does not exist or is not a folder is a usage error: a typo must not run the app without it.
    package func directories(adding extra: [String]) throws(Problem) -> [String] {
        try Self.checkFolders(extra, option: "--plugins")
        var seen: Set<String> = []
        return ([pluginDirectory.path] + extra).filter { directory in
            seen.insert(URL(fileURLWithPath: directory).resolvingSymlinksInPath().standardizedFileURL.path).inserted
        }
    }

    /// Throws a usage problem naming the first of `folders` that does not exist or is not a folder (`option` is how
    /// the command line named it: `--plugins`, or `doctor DIR`).
    package static func checkFolders(_ folders: [String], option: String) throws(Problem) {
        for folder in folders {
            let kind = FileFacts.kind(of: folder)
            guard kind != .folder else { continue }
            throw Problem.usage(
                "\(option) \(folder): \(kind == .file ? "is a file, not a folder" : "no such folder")",
                fix:
                    "name the folder that holds the lib<Feature>.so files (a package's .build/debug, say); check the spelling"
            )
        }
    }

    /// The `lib*.so` files in `directories`, less those of the repository's build folder whose feature folder is gone
    /// from Plugins/ (deleted or renamed since the library was built: it would run code that is no longer there).
    /// Libraries in any other folder, `--plugins DIR` included, are all kept; under `MICROAPP_TEST_FEATURES` (test-only)
    /// those of the build folder it does not name are not loaded either. The rule is this repository's layout:
    /// a package without a `Plugins/` folder (an app's own host, its features as ordinary targets) keeps every
    /// library of its build folder, and a library whose target is in `Sources/<Name>` is never a leftover.
    package func libraries(
        in directories: [String], environment: HostEnvironment
    ) -> (paths: [String], leftover: LeftoverLibraries?) {
        guard let repository, FileFacts.exists(repository.appendingPathComponent(FeatureFolders.plugins).path)
        else { return (PluginSet.discover(in: directories), nil) }
        let buildFolder = executableDirectory.resolvingSymlinksInPath().path
        var kept: [String] = []
        var skipped: [(file: String, why: String)] = []
        for directory in directories {
            let files = PluginSet.discover(in: [directory])
            guard URL(fileURLWithPath: directory).resolvingSymlinksInPath().path == buildFolder else {
                kept += files
                continue
            }
            // Under `swift test` (MICROAPP_TEST_FEATURES), the features a person added are not there at all.
            for file in files where FeatureList.isVisible(FeatureLibrary.stem(of: file), in: environment) {
                let folder = FeatureFolders.relative(FeatureLibrary.stem(of: file))
                let sources = FeatureFolders(feature: FeatureLibrary.stem(of: file), in: repository.path).sources
                let target = repository.appendingPathComponent("Sources/\(FeatureLibrary.stem(of: file))").path
                if FileFacts.exists(sources) || FileFacts.exists(target) {
                    kept.append(file)
                } else if FileFacts.exists(repository.appendingPathComponent(folder).path) {
                    skipped.append((file, "\(folder) has no Sources folder"))
                } else {
                    skipped.append((file, "\(folder) no longer exists"))
                }
            }
        }
        return (kept, skipped.isEmpty ? nil : LeftoverLibraries(libraries: skipped, folder: executableDirectory.path))
    }

    /// Where the library at `path` was found: the repository's build folder, an installed host's own folder, or a
    /// `--plugins` folder.
    package func origin(of path: String) -> LibraryTrust.Origin {
        let folder = URL(fileURLWithPath: (path as NSString).deletingLastPathComponent)
        guard folder.resolvingSymlinksInPath().path == pluginDirectory.resolvingSymlinksInPath().path else {
            return .pluginsFolder(folder.path)
        }
        return repository == nil ? .besideHost : .repository
    }

    /// The facts the isolation decision and the library's trust rest on: where `path` was found, and `lock`, what its
    /// folder's lock says.
    package func trust(of path: String, lock: LibraryTrust.Lock) -> LibraryTrust {
        LibraryTrust(origin: origin(of: path), lock: lock)
    }
}

/// Libraries left in the repository's build folder by features whose folder is gone: they are not loaded.
package struct LeftoverLibraries: Sendable {
    /// Each library's path, and why it is left over.
    package let libraries: [(file: String, why: String)]
    /// The build folder they are in.
    package let folder: String

    /// `libProfile.so` for each.
    package var names: [String] { libraries.map { ($0.file as NSString).lastPathComponent } }

    /// One sentence naming every library skipped and why.
    package var message: String {
        let each = zip(names, libraries).map { "\($0) (\($1.why))" }
        return "skipped \(each.joined(separator: ", ")): left in \(folder) by an earlier build"
    }

    /// What to do about them.
    package var fix: String {
        "restore the feature's folder in Plugins/ and rebuild, or delete \(names.joined(separator: ", ")) from \(folder)"
    }

    /// The note for people on stderr (`microapp: note: …` and the fix) and the terminal's footer.
    package var note: Problem { Problem(code: .skippedLibraries, subject: "", reason: message, fix: fix) }
}
