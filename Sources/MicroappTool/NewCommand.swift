import CommandLineSpec
import Foundation
import MicroappDevLoop
import MicroappHost
import MicroappPlatform

/// `microapp new NAME`: scaffolds `Plugins/NAME` with a feature that `microapp`, `microapp solo NAME`,
/// `microapp preview NAME` and `swift test` run at once, with no edits.
enum NewCommand: Command {
    static let package = OptionSpec.value(
        "--package", "DIR", .text,
        help: """
            write a standalone SwiftPM package to DIR instead (a new or empty folder,
            anywhere): `swift build` there makes lib<NAME>.so; the SDK is installed first
            (see `microapp sdk`)
            """)

    static let declaration = CommandSpec(
        "microapp new",
        summary: "scaffold Plugins/NAME (or a package of its own): a feature, its mocks, previews, a test",
        operands: [.required("NAME")],
        options: [package],
        discussion: """
            Scaffolds Plugins/NAME in the repository (the current folder or above, else the one this executable
            was built in): a feature with id `name` (lower case), one screen `name://home` with a view model, a
            service `name.greeting` that the feature provides to the app and uses itself, mocks for it (default,
            slow, failing), previews and their golden files, the C entry, and a test with MicroappTesting. Then
            `microapp --open name://home` runs it in the app, `microapp solo NAME` alone, and `swift test` tests it.
            Its name is added to the feature list in Package.swift, so SwiftPM sees it at the next build (and
            `microapp remove NAME` takes both away again).
            With --package DIR the same feature is a package of its own (Sources/NAME, Sources/NAMEPlugin,
            Tests/NAMETests, Previews) that depends on the SDK installed by `microapp sdk --install`; run it with
            `microapp --plugins DIR/.build/debug` (also solo, preview and --watch).
            NAME must be a Swift identifier (UpperCamelCase recommended): no keywords, no leading digit, only
            A-Z, a-z, 0-9 and _, and no name already taken. Exit 1, with the reason, when it is refused.
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        try run(arguments)
    }

    static func run(_ arguments: Arguments) throws(Problem) -> ExitCode {
        guard arguments.operands.count == 1, let name = arguments.operands.first else {
            throw Problem.usage("new takes exactly one NAME", fix: "write e.g. `microapp new Profile`")
        }
        if let directory = arguments[Self.package] {
            return try package(name, in: directory, environment: arguments.environment)
        }
        guard let root = repositoryRoot(from: arguments.environment.currentDirectory) else {
            throw Problem.usage(
                "no repository here to add a feature to",
                fix: "run `microapp new` in the repository (the folder with Package.swift and Plugins/)")
        }
        let list = try featureList(in: root)
        let folder = URL(fileURLWithPath: FeatureFolders.folder(of: name, in: root.path))
        let folderExists = Files.exists(folder.path)
        if list.declared.contains(name) && !folderExists {
            throw Problem.usage(
                "Package.swift already lists the feature \(name), but Plugins/\(name) is missing",
                fix: "`swift run microapp remove \(name)` takes the line out first; or restore the folder")
        }
        if folderExists && !list.declared.contains(name) {
            throw Problem.usage(
                "Plugins/\(name) already exists, but Package.swift's feature list does not name it",
                fix:
                    "add the line \"\(name)\", to Package.swift between `\(FeatureList.beginMarker)` and `\(FeatureList.endMarker)` to build the folder that is there, or choose another name"
            )
        }
        let scaffold = try FeatureScaffold(
            name: name, existing: Array(Set(list.declared + FeatureList.folders(in: root))).sorted())
        try write(scaffold.files, to: folder, named: "Plugins/\(name)", fix: "check that Plugins/ is writable")
        // The folder first, then its line: SwiftPM never sees a listed feature without its folder.
        try writeManifest(list.adding(name), in: root, undoing: folder)
        if let note = scaffold.note { Console.err("microapp: note: \(note)") }
        Console.out(
            """
            Created Plugins/\(name): feature '\(scaffold.id)', route \(scaffold.route), service \(scaffold.serviceKey) (provided by the feature, mocked when it runs alone).
            \(scaffold.files.map { "  Plugins/\(name)/\($0.path)" }.joined(separator: "\n"))
            Added "\(name)" to the feature list in Package.swift (SwiftPM sees the change at the next build).

            Next\(nextFolder(root, from: arguments.environment.currentDirectory)):
            """)
        Console.out(
            nextRows([
                ("swift run microapp --open \(scaffold.route)", "run the app at its screen"),
                (
                    "swift run microapp solo \(name)",
                    "run it alone on its mocks (--mock \(scaffold.serviceKey)=failing|slow)"
                ),
                ("swift run microapp preview \(name)", "its screen in each state, as in Plugins/\(name)/Previews"),
                ("swift test --filter \(name)Tests", "its tests"),
                ("swift run microapp remove \(name)", "take it out again (its folder and its line in Package.swift)"),
            ]))
        return .ok
    }

    /// The feature list of `root`'s Package.swift, or a usage error saying there is none to add to.
    static func featureList(in root: URL) throws(Problem) -> FeatureList {
        guard let list = FeatureList.read(repository: root) else {
            throw Problem.usage(
                "\(root.appendingPathComponent("Package.swift").path) declares no feature list",
                fix:
                    "list the features in it one `\"Name\",` a line between `\(FeatureList.beginMarker)` and `\(FeatureList.endMarker)`, as this repository's Package.swift does"
            )
        }
        return list
    }

    /// Writes `manifest` as `root`'s Package.swift (atomically); on failure removes `folder` (when given) and says why.
    static func writeManifest(_ manifest: String, in root: URL, undoing folder: URL?) throws(Problem) {
        do {
            try Files.replace(FeatureList.manifestURL(in: root).path, with: Data(manifest.utf8))
        } catch {
            if let folder { try? Files.remove(folder.path) }
            throw Problem.usage(
                "could not write \(FeatureList.manifestURL(in: root).path): \(error)",
                fix: "check that Package.swift can be written")
        }
    }

    /// Writes `files` into `folder`; on failure removes `folder` again and says why, naming it `label`.
    private static func write(
        _ files: [(path: String, contents: String)], to folder: URL, named label: String, fix: String
    ) throws(Problem) {
        do {
            for (path, contents) in files {
                let file = folder.appendingPathComponent(path)
                try Files.makeDirectory(file.deletingLastPathComponent().path)
                try Files.replace(file.path, with: Data(contents.utf8))
            }
        } catch {
            try? Files.remove(folder.path)
            throw Problem.usage("could not write \(label): \(error)", fix: fix)
        }
    }

    /// `new NAME --package DIR`: installs the SDK when it is not there yet, then writes the feature as a package of
    /// its own into `directory` (which must be new or empty; a relative one is from `environment`'s current directory).
    static func package(_ name: String, in directory: String, environment: HostEnvironment) throws(Problem)
        -> ExitCode
    {
        let scaffold = try FeatureScaffold(name: name, existing: [])
        let folder = URL(fileURLWithPath: environment.absolutePath(directory)).standardizedFileURL
        guard Files.names(in: folder.path).isEmpty else {
            throw Problem.usage(
                "\(folder.path) is not empty", fix: "choose a new or empty folder for the package, e.g. ./\(name)")
        }
        let installation = try SDKCommand.current(environment)
        if try installation.install(builtSDK: SDKCommand.builtSDK) {
            Console.err("microapp: wrote SDK \(installation.version) to \(installation.folder.path)")
        }
        let files = scaffold.packageFiles(sdkVersion: installation.version)
        try write(files, to: folder, named: folder.path, fix: "check that \(folder.path) can be written")
        if let note = scaffold.note { Console.err("microapp: note: \(note)") }
        let microapp = invocation(path: environment.variables["PATH"])
        let custom =
            environment[SDKInstallation.variable] == nil
            ? ""
            : "\n(the SDK is at $\(SDKInstallation.variable) = \(installation.folder.path): set it for every build)"
        Console.out(
            """
            Created the package \(folder.path): feature '\(scaffold.id)', route \(scaffold.route), service \(scaffold.serviceKey).
            \(files.map { "  \($0.path)" }.joined(separator: "\n"))
            It builds against SDK \(installation.version) in \(installation.folder.path) (`microapp sdk`).\(custom)

            Next, in \(folder.path):
            """)
        Console.out(
            nextRows([
                ("swift build", "makes .build/debug/lib\(name).so"),
                ("swift test", "runs its tests"),
                ("\(microapp.command) --plugins .build/debug --open \(scaffold.route)", "the app at its screen"),
                (
                    "\(microapp.command) solo \(name) --plugins .build/debug --watch",
                    "alone on its mocks; a save rebuilds and swaps it"
                ),
                (
                    "\(microapp.command) preview \(name) --plugins .build/debug --output Previews",
                    "rewrite the golden previews"
                ),
            ]) + (microapp.pathNote.map { "\n\($0)" } ?? ""))
        return .ok
    }

    /// The rows of a "Next:" list, each command (as this host's name says it) padded to the longest so that what each
    /// does starts in one column; when a command is too long for that (a full path), what it does goes under it.
    static func nextRows(_ rows: [(command: String, what: String)]) -> String {
        let spoken = rows.map { (command: ProgramName.spoken($0.command), what: $0.what) }
        let width = spoken.map(\.command.count).max() ?? 0
        guard width <= 60 else { return spoken.map { "  \($0.command)\n      \($0.what)" }.joined(separator: "\n") }
        return spoken.map { "  " + $0.command.padding(toLength: width, withPad: " ", startingAt: 0) + "   " + $0.what }
            .joined(separator: "\n")
    }

    /// How to start this `microapp` from any folder, as the "Next:" lines print it: `microapp` when that name on PATH
    /// is this executable, else its absolute path, with a note saying once how to put its folder on PATH (a person
    /// who followed the README runs it with `swift run`, and a bare `microapp` is `command not found`).
    static func invocation(
        executable: String = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path,
        name: String = ProgramName.name, path: String?
    ) -> (command: String, pathNote: String?) {
        let onPath = (path ?? "").split(separator: ":").map { "\($0)/\(name)" }.first {
            Files.isExecutable($0)
        }
        if let onPath, URL(fileURLWithPath: onPath).resolvingSymlinksInPath().path == executable {
            return ("microapp", nil)
        }
        let folder = (executable as NSString).deletingLastPathComponent
        return (
            shellQuoted(executable),
            "(to type `microapp` instead of its full path: export PATH=\"\(folder):$PATH\")"
        )
    }

    /// `text` as one shell word: as it is when it has only safe characters, else in single quotes.
    private static func shellQuoted(_ text: String) -> String {
        let safe = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._-+=:@")
        guard text.unicodeScalars.contains(where: { !safe.contains($0) }) else { return text }
        return "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// ", in ROOT" when the current folder is not inside the repository `root` (`swift run` runs there only), else "".
    private static func nextFolder(_ root: URL, from currentDirectory: String) -> String {
        let here = URL(fileURLWithPath: currentDirectory).standardizedFileURL
            .resolvingSymlinksInPath().path
        let repository = root.standardizedFileURL.resolvingSymlinksInPath().path
        return here == repository || here.hasPrefix(repository + "/") ? "" : ", in \(repository)"
    }

    /// The repository to add the feature to: the current folder or one above it that holds Package.swift and
    /// Plugins/, else the repository this executable was built in.
    static func repositoryRoot(from currentDirectory: String) -> URL? {
        var folder = URL(fileURLWithPath: currentDirectory).standardizedFileURL
        while true {
            let hasManifest = Files.exists(folder.appendingPathComponent("Package.swift").path)
            if hasManifest && Files.isDirectory(folder.appendingPathComponent(FeatureFolders.plugins).path) {
                return folder
            }
            guard folder.path != "/" else { break }
            folder.deleteLastPathComponent()
        }
        return PluginLocations.current().repository
    }
}
