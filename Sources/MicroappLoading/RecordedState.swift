import Foundation
import MicroappPlatform

/// What the app process records for its supervisor: where it is, and which feature each loaded library holds.
package struct RecordedState: Codable, Sendable {
    /// A record of `route` shown by `feature`, with the loaded `libraries`.
    package init(route: String, feature: String, libraries: [String: RecordedLibrary]) {
        self.route = route
        self.feature = feature
        self.libraries = libraries
    }

    /// The route on screen.
    package var route: String
    /// The feature on screen.
    package var feature: String
    /// Every plugin library the app process loaded, by canonical full path (as a crash report names it), hot-swapped
    /// copies included.
    package var libraries: [String: RecordedLibrary]

    /// The state recorded at `path`; nil when there is none (or it cannot be read).
    package static func load(_ path: String) -> RecordedState? {
        Files.contents(path).flatMap { try? JSONDecoder().decode(RecordedState.self, from: $0) }
    }

    /// Records the state at `path`, replacing it in one step.
    package func save(_ path: String) {
        try? Files.replaceUnflushed(path, with: JSONEncoder().encode(self))
    }

    /// The libraries of `images`, each its own feature's starting library, keyed by the file mapped (its private
    /// copy, which a crash report names).
    package static func libraries(of images: [PluginImage]) -> [String: RecordedLibrary] {
        Dictionary(
            images.map { image in
                (
                    canonicalPath(image.file),
                    RecordedLibrary(feature: image.manifest.id, library: canonicalPath(image.path))
                )
            }, uniquingKeysWith: { first, _ in first })
    }

    /// `path` with symbolic links, `.` and `..` resolved, as the kernel names a mapped file; `path` itself when it
    /// cannot be resolved (gone).
    package static func canonicalPath(_ path: String) -> String { FileFacts.canonicalPath(path) }
}

/// One loaded plugin library: the feature it holds and the library to turn off when it crashes (the file the
/// feature was started from, which for a hot-swapped copy is not the copy).
package struct RecordedLibrary: Codable, Equatable, Sendable {
    /// A library of `feature` started from `library` (`swapped`: a hot-swapped build's copy).
    package init(feature: String, library: String, swapped: Bool? = nil) {
        self.feature = feature
        self.library = library
        self.swapped = swapped
    }

    /// The feature.
    package var feature: String
    /// The library it started from.
    package var library: String
    /// True for a hot-swapped build's copy (false or absent: the copy the feature started from).
    package var swapped: Bool?
}
