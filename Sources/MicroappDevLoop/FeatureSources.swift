import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform

/// The sources `--watch` follows for one running feature: its folder in a repository's `Plugins/`, or the folders of
/// a package of its own (`new --package`), and the builder of the build folder its library came from.
public struct FeatureSources: Sendable {
    /// The feature's product name (`Characters`), also its folder in a repository's `Plugins/`.
    public let folder: String
    /// Rebuilds `lib<folder>.so` in the build folder of the running library.
    public let builder: PluginBuilder

    /// Follows the folders of `folder` (the product's name) that `builder` builds it from.
    public init(folder: String, builder: PluginBuilder) {
        self.folder = folder
        self.builder = builder
    }

    /// The sources of the library at `library`, when it lies in a SwiftPM build folder `<root>/.build/…/<configuration>`
    /// of a Microapps repository: `<root>/Package.swift` and, for `lib<Name>.so`, `<root>/Plugins/<Name>/Sources`
    /// exist. Else, for a library SwiftPM built from a package of its own (any scratch path), the folders its build
    /// lists for `<Name>` and `<Name>Plugin`, in that package. Nil for a library from anywhere else (a download, a copy).
    /// A relative `library` is from `environment`'s current directory, whose `MICROAPP_REBUILD` says how to rebuild.
    public init?(library: String, environment: HostEnvironment) {
        // Rebuilds run in the repository's folder: a relative `--plugins` path would mean something else there.
        let path = Self.absolute(library, from: environment.currentDirectory)
        guard let name = PluginFileName.feature(of: path) else { return nil }
        let buildDirectory = (path as NSString).deletingLastPathComponent
        let configuration = (buildDirectory as NSString).lastPathComponent
        var candidate = buildDirectory
        while candidate != "/" && !candidate.isEmpty && (candidate as NSString).lastPathComponent != ".build" {
            candidate = (candidate as NSString).deletingLastPathComponent
        }
        let root = (candidate as NSString).deletingLastPathComponent
        guard candidate != buildDirectory, (candidate as NSString).lastPathComponent == ".build",
            Files.exists(root + "/Package.swift"), Files.exists(FeatureFolders(feature: name, in: root).sources)
        else {
            guard let folders = FeatureFolders(planned: name, buildDirectory: buildDirectory),
                let package = folders.package
            else { return nil }
            let builder = PluginBuilder(
                repository: package, buildDirectory: buildDirectory, configuration: configuration, package: folders,
                environment: environment)
            self.init(folder: name, builder: builder)
            return
        }
        let builder = PluginBuilder(
            repository: root, buildDirectory: buildDirectory, configuration: configuration, environment: environment)
        self.init(folder: name, builder: builder)
    }

    /// The folders whose Swift files go into the library: `Plugins/<folder>/Sources` and `Entry` in a repository.
    var directories: [String] { builder.folders(of: folder).all }

    /// `path` from `currentDirectory` when it is relative, without `.`, `..` or doubled slashes: how rebuilt
    /// libraries are named, and how the watchers name what they see.
    static func absolute(_ path: String, from currentDirectory: String) -> String {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: currentDirectory + "/")).standardizedFileURL.path
    }

    /// True when `path` lies in the feature's folders.
    func contains(_ path: String) -> Bool { builder.folders(of: folder).contains(path) }
}
