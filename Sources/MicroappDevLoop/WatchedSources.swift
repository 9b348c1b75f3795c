import Foundation

/// The sources `--watch` follows for one running feature: its folder in a repository's `Plugins/` and the rebuilder
/// of the build folder its library came from.
public struct WatchedSources: Sendable {
    /// The feature's folder in `Plugins/` (`Characters`), also its product's name.
    public let folder: String
    /// Rebuilds `lib<folder>.so` in the build folder of the running library.
    public let rebuilder: PluginRebuilder

    /// Follows `Plugins/<folder>` of `rebuilder`'s repository.
    public init(folder: String, rebuilder: PluginRebuilder) {
        self.folder = folder
        self.rebuilder = rebuilder
    }

    /// The sources of the library at `library`, when it lies in a SwiftPM build folder `<root>/.build/…/<configuration>`
    /// of a Microapps repository: `<root>/Package.swift` and, for `lib<Name>.so`, `<root>/Plugins/<Name>/Sources`
    /// exist. Nil for a library from anywhere else (a download, a copy, a build with another scratch path).
    public init?(library: String) {
        // Rebuilds run in the repository's folder: a relative `--plugins` path would mean something else there.
        let path = Self.absolute(library)
        let file = (path as NSString).lastPathComponent
        guard file.hasPrefix("lib"), file.hasSuffix(".so"), file.count > 6 else { return nil }
        let name = String(file.dropFirst(3).dropLast(3))
        let buildDirectory = (path as NSString).deletingLastPathComponent
        var candidate = buildDirectory
        while candidate != "/" && !candidate.isEmpty && (candidate as NSString).lastPathComponent != ".build" {
            candidate = (candidate as NSString).deletingLastPathComponent
        }
        guard candidate != buildDirectory, (candidate as NSString).lastPathComponent == ".build" else { return nil }
        let root = (candidate as NSString).deletingLastPathComponent
        let files = FileManager.default
        guard files.fileExists(atPath: root + "/Package.swift"),
            files.fileExists(atPath: root + "/Plugins/\(name)/Sources")
        else { return nil }
        self.init(
            folder: name,
            rebuilder: PluginRebuilder(
                repository: root, buildDirectory: buildDirectory,
                configuration: (buildDirectory as NSString).lastPathComponent))
    }

    /// The folders whose Swift files go into the library: `Plugins/<folder>/Sources` and `Entry`.
    var directories: [String] {
        ["Sources", "Entry"].map { rebuilder.repository + "/Plugins/\(folder)/\($0)" }
    }

    /// `path` from the current folder when it is relative, without `.`, `..` or doubled slashes: how rebuilt
    /// libraries are named, and how the watchers name what they see.
    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath + "/"))
            .standardizedFileURL.path
    }

    /// True when `path` lies in `Plugins/<folder>` of the repository.
    func contains(_ path: String) -> Bool {
        path.hasPrefix(rebuilder.repository + "/Plugins/\(folder)/")
    }
}
