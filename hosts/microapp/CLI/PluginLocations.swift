import Foundation

/// Where this executable lives, where its plugins are, and the repository it was built from (if any).
struct PluginLocations {
    /// The folder of the running executable (SwiftPM's build folder when run with `swift run`).
    let executableDirectory: URL
    /// The repository root, when the executable sits in its `.build`.
    let repository: URL?
    /// `debug` or `release`: the configuration the executable was built with.
    var configuration: String { executableDirectory.lastPathComponent }

    static func current() -> PluginLocations {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let directory = executable.deletingLastPathComponent()
        var candidate = directory
        var repository: URL?
        while candidate.path != "/" {
            if candidate.lastPathComponent == ".build" {
                let root = candidate.deletingLastPathComponent()
                if FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
                    repository = root
                }
                break
            }
            candidate.deleteLastPathComponent()
        }
        return PluginLocations(executableDirectory: directory, repository: repository)
    }

    /// The plugin folders to load: beside the executable, then each `--plugins DIR`.
    func directories(adding extra: [String]) -> [String] {
        [executableDirectory.path] + extra
    }
}
