import CommandLineSpec
import Foundation
import MicroappDevLoop
import MicroappLoading
import MicroappPlatform

/// `microapp remove NAME`: takes a feature out of the repository — its line in Package.swift's feature list, its
/// folder `Plugins/NAME` and the libraries built from it — the way `new` put it in, so SwiftPM (which caches
/// Package.swift by its contents) sees the change with no cache to purge.
///
/// A folder that holds files is only removed with `--yes`: without it the command says what it would delete and
/// deletes nothing. Moving the folder aside instead would keep work nobody looks for again (in the repository it is
/// clutter git shows; in a temporary or build folder it goes with the next clean), and the folder may hold work not
/// yet committed, which no git command brings back.
enum RemoveCommand: Command {
    static let yes = OptionSpec.flag(
        "--yes",
        help: """
            delete Plugins/NAME even though it holds files (without it, remove says what it would
            delete and deletes nothing)
            """)

    static let declaration = CommandSpec(
        "microapp remove",
        summary: "take a feature out of the repository: its line in Package.swift, Plugins/NAME, its libraries",
        operands: [.required("NAME")],
        options: [yes],
        discussion: """
            Undoes `microapp new NAME` in the repository (the current folder or above, else the one this executable
            was built in): takes "NAME", out of the feature list in Package.swift (between
            `// microapp: features begin` and `// microapp: features end`), deletes Plugins/NAME, the lib<NAME>.so
            files built from it in .build, and the build folders it left there (NAME.build, the watch loop's). Package.swift's contents change, so the next `swift build` or `swift test`
            sees the feature gone without purging SwiftPM's cache. A folder holding files is deleted only with --yes:
            work in it that is not committed cannot be brought back. Exit 1, deleting nothing, when NAME is neither
            listed nor a folder in Plugins/, or when --yes is needed.
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        try run(arguments)
    }

    static func run(_ arguments: Arguments) throws(Problem) -> ExitCode {
        guard arguments.operands.count == 1, let asked = arguments.operands.first else {
            throw Problem.usage("remove takes exactly one NAME", fix: "write e.g. `microapp remove Profile`")
        }
        guard let root = NewCommand.repositoryRoot(from: arguments.environment.currentDirectory) else {
            throw Problem.usage(
                "no repository here to remove a feature from",
                fix: "run `microapp remove` in the repository (the folder with Package.swift and Plugins/)")
        }
        let list = try NewCommand.featureList(in: root)
        let known = Array(Set(list.declared + FeatureList.folders(in: root))).sorted()
        guard
            let name = known.first(where: { $0 == asked })
                ?? known.first(where: { $0.lowercased() == asked.lowercased() })
        else {
            throw Problem.usage(
                "no feature is called '\(asked)': Package.swift's feature list does not name it and Plugins/ has no such folder",
                fix: "use one of: \(known.isEmpty ? "none" : known.joined(separator: ", "))")
        }
        let folder = URL(fileURLWithPath: FeatureFolders.folder(of: name, in: root.path))
        let files = Self.files(in: folder)
        let libraries = builtLibraries(of: name, in: root)
        let intermediates = buildFolders(of: name, in: root)
        var parts: [String] = []
        if list.declared.contains(name) { parts.append("\"\(name)\" from Package.swift's feature list") }
        if Files.exists(folder.path) {
            parts.append("Plugins/\(name) (\(files.count) file\(files.count == 1 ? "" : "s"))")
        }
        if !libraries.isEmpty {
            parts.append(libraries.map { relative($0, to: root) }.joined(separator: ", "))
        }
        if !intermediates.isEmpty {
            parts.append("its build folders (\(intermediates.map { relative($0, to: root) }.joined(separator: ", ")))")
        }
        guard files.isEmpty || arguments[yes] else {
            let shown = files.prefix(6).joined(separator: ", ") + (files.count > 6 ? ", …" : "")
            throw Problem.usage(
                "remove \(name) would delete \(parts.joined(separator: "; ")) — Plugins/\(name) holds \(shown); nothing was removed",
                fix:
                    "run `microapp remove \(name) --yes` to delete them (work in the folder that is not committed is lost: commit or copy it first to keep it)"
            )
        }
        // The line first: a folder left over (a delete that fails half way) is only a folder the list does not name,
        // while a listed feature without its folder would stop every SwiftPM build.
        if list.declared.contains(name) { try NewCommand.writeManifest(list.removing(name), in: root, undoing: nil) }
        do {
            if Files.exists(folder.path) { try Files.remove(folder.path) }
            for library in libraries + intermediates { try Files.remove(library) }
        } catch {
            throw Problem.usage(
                "took \(name) out of Package.swift, but could not delete all of its files: \(error)",
                fix: "delete what is left of Plugins/\(name) and lib\(name).so by hand")
        }
        Console.out(
            """
            Removed \(name): \(parts.joined(separator: "; ")).

            Next:
              swift build    builds the app without it (Package.swift changed, so SwiftPM reads it again)
              swift test     the app's tests never depended on it
            """)
        return .ok
    }

    /// The paths of the regular files under `folder`, relative to it and sorted (none when it does not exist).
    private static func files(in folder: URL) -> [String] {
        (Files.subpaths(of: folder.path) ?? []).filter { path in
            let file = folder.appendingPathComponent(path).path
            return Files.exists(file) && !Files.isDirectory(file)
        }.sorted()
    }

    /// `lib<name>.so` and its build stamp in each configuration folder of the repository's `.build` (SwiftPM never
    /// deletes a product whose target is gone; left there, it would be reported at every start).
    private static func builtLibraries(of name: String, in root: URL) -> [String] {
        let build = root.appendingPathComponent(".build")
        let triples = (Files.names(in: build.path)).map {
            build.appendingPathComponent($0)
        }
        var seen: Set<String> = []
        var found: [String] = []
        for folder in [build] + triples {
            for configuration in ["debug", "release"] {
                let directory = folder.appendingPathComponent(configuration).resolvingSymlinksInPath()
                for file in [PluginFileName.make(name), PluginFileName.make(name) + ".built"] {
                    let path = directory.appendingPathComponent(file).path
                    if Files.exists(path), seen.insert(path).inserted { found.append(path) }
                }
            }
        }
        return found.sorted()
    }

    /// What building `name` left in the repository's `.build`: SwiftPM's module folders (`<name>.build`,
    /// `<name>Plugin.build`, `<name>Tests.build`) and the watch loop's shadow build (`microapp-watch/<configuration>/
    /// <name>`), in each configuration; SwiftPM never deletes them once the target is gone.
    private static func buildFolders(of name: String, in root: URL) -> [String] {
        let build = root.appendingPathComponent(".build")
        let scratches = [build] + Files.names(in: build.path).map { build.appendingPathComponent($0) }
        var seen: Set<String> = []
        var found: [String] = []
        for folder in scratches {
            for configuration in ["debug", "release"] {
                let directory = folder.appendingPathComponent(configuration).resolvingSymlinksInPath()
                let modules = [name, name + "Plugin", name + "Tests"].map {
                    directory.appendingPathComponent($0 + ".build").path
                }
                let shadow = folder.appendingPathComponent("microapp-watch/\(configuration)/\(name)").path
                for path in modules + [shadow] where Files.isDirectory(path) && seen.insert(path).inserted {
                    found.append(path)
                }
            }
        }
        return found.sorted()
    }

    /// `path` relative to `root` when it lies in it.
    private static func relative(_ path: String, to root: URL) -> String {
        path.hasPrefix(root.path + "/") ? String(path.dropFirst(root.path.count + 1)) : path
    }
}
