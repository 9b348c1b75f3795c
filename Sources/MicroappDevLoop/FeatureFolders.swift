import Foundation
import MicroappPlatform

/// Where one feature's sources are: the folder of its module and that of its entry module (`Plugins/<Name>/Sources`
/// and `Entry` in a repository; `Sources/<Name>` and `Sources/<Name>Plugin` in a package made by `new --package`).
public struct FeatureFolders: Sendable, Equatable {
    /// The feature module's folder.
    public let sources: String
    /// The entry module's folder.
    public let entry: String

    /// The folders `sources` and `entry`, as absolute paths.
    public init(sources: String, entry: String) {
        self.sources = sources
        self.entry = entry
    }

    /// The folders SwiftPM compiled `feature` and `<feature>Plugin` from, as its build of the library in
    /// `buildDirectory` lists them (`<feature>.build/sources`); nil when that build left no such lists.
    public init?(planned feature: String, buildDirectory: String) {
        guard let sources = Self.plannedFolder(of: feature, in: buildDirectory),
            let entry = Self.plannedFolder(of: feature + "Plugin", in: buildDirectory)
        else { return nil }
        self.init(sources: sources, entry: entry)
    }

    /// Both folders.
    public var all: [String] { [sources, entry] }

    /// True when `path` lies in one of the folders.
    public func contains(_ path: String) -> Bool {
        all.contains { path.hasPrefix($0 + "/") }
    }

    /// The folder of the package (the nearest one above `sources` with a `Package.swift`).
    public var package: String? {
        var folder = (sources as NSString).deletingLastPathComponent
        while folder != "/" && !folder.isEmpty {
            if Files.exists(folder + "/Package.swift") { return folder }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return nil
    }

    /// The longest folder that holds every file SwiftPM lists for `module` (its target's folder, or one in it).
    private static func plannedFolder(of module: String, in buildDirectory: String) -> String? {
        guard let list = Files.text(buildDirectory + "/\(module).build/sources")
        else { return nil }
        let folders = list.split(separator: "\n").map {
            ($0.trimmingCharacters(in: CharacterSet(charactersIn: "'\"")) as NSString).deletingLastPathComponent
        }
        guard var common = folders.first, common.hasPrefix("/") else { return nil }
        for folder in folders.dropFirst() {
            while common != "/" && folder != common && !folder.hasPrefix(common + "/") {
                common = (common as NSString).deletingLastPathComponent
            }
        }
        return common == "/" ? nil : common
    }
}

/// The repository layout of a feature, said once: `Plugins/<Name>` holds `Sources` (its module), `Entry` (its C entry
/// module) and `Tests`. The staleness check, the builder, the watch loop, the feature list, the plugin locations and
/// `new` all ask here.
extension FeatureFolders {
    /// The folder of a repository with one folder per feature.
    package static let plugins = "Plugins"
    /// The folders a listed feature needs: its module, its C entry and its tests.
    package static let parts = ["Sources", "Entry", "Tests"]

    /// `Plugins/<feature>`, relative to the repository.
    package static func relative(_ feature: String) -> String { "\(plugins)/\(feature)" }

    /// `Plugins/<feature>` in `repository`.
    package static func folder(of feature: String, in repository: String) -> String {
        repository + "/" + relative(feature)
    }

    /// The module and entry folders of `feature` in `repository`: `Plugins/<feature>/Sources` and `…/Entry`.
    package init(feature: String, in repository: String) {
        let folder = Self.folder(of: feature, in: repository)
        self.init(sources: folder + "/Sources", entry: folder + "/Entry")
    }
}
