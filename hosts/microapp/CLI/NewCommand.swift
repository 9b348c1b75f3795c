import Foundation

/// `microapp new NAME`: scaffolds `Plugins/NAME` with a feature that `microapp`, `microapp solo NAME`,
/// `microapp preview NAME` and `swift test` run at once, with no edits.
enum NewCommand {
    static func run(_ arguments: Arguments) throws(UsageError) -> ExitCode {
        guard arguments.operands.count == 1, let name = arguments.operands.first else {
            throw UsageError("new takes exactly one NAME", fix: "write e.g. `microapp new Profile`")
        }
        guard let root = repositoryRoot() else {
            throw UsageError(
                "no repository here to add a feature to",
                fix: "run `microapp new` in the repository (the folder with Package.swift and Plugins/)")
        }
        let plugins = root.appendingPathComponent("Plugins")
        let scaffold = try FeatureScaffold(name: name, existing: FeatureLibrary.pluginFolders(in: root))
        let folder = plugins.appendingPathComponent(name)
        guard !FileManager.default.fileExists(atPath: folder.path) else {
            throw UsageError(
                "Plugins/\(name) already exists", fix: "choose another name, or remove Plugins/\(name) first")
        }
        do {
            for (path, contents) in scaffold.files {
                let file = folder.appendingPathComponent(path)
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try contents.write(to: file, atomically: true, encoding: .utf8)
            }
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw UsageError("could not write Plugins/\(name): \(error)", fix: "check that Plugins/ is writable")
        }
        if let note = scaffold.note { Console.err("microapp: note: \(note)") }
        Console.out(
            """
            Created Plugins/\(name): feature '\(scaffold.id)', route \(scaffold.route), service \(scaffold.serviceKey) (provided by the feature, mocked when it runs alone).
            \(scaffold.files.map { "  Plugins/\(name)/\($0.path)" }.joined(separator: "\n"))

            Next:
              swift run microapp --open \(scaffold.route)   run the app at its screen
              swift run microapp solo \(name)        run it alone on its mocks (--mock \(scaffold.serviceKey)=failing|slow)
              swift run microapp preview \(name)     its screen in each state, as in Plugins/\(name)/Previews
              touch Package.swift && swift test --manifest-cache none --filter \(name)Tests
            (SwiftPM caches Package.swift: the first build or test after adding a folder needs
            `--manifest-cache none` after touching it; `microapp solo` does that for you.)
            """)
        return .ok
    }

    /// The repository to add the feature to: the current folder or one above it that holds Package.swift and
    /// Plugins/, else the repository this executable was built in.
    static func repositoryRoot() -> URL? {
        var folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL
        while true {
            let hasManifest = FileManager.default.fileExists(
                atPath: folder.appendingPathComponent("Package.swift").path)
            var isDirectory: ObjCBool = false
            let plugins = folder.appendingPathComponent("Plugins").path
            if hasManifest && FileManager.default.fileExists(atPath: plugins, isDirectory: &isDirectory)
                && isDirectory.boolValue
            {
                return folder
            }
            guard folder.path != "/" else { break }
            folder.deleteLastPathComponent()
        }
        return PluginLocations.current().repository
    }
}
