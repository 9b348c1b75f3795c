import Foundation
import MicroappCore
import MicroappPlatform

extension LibraryStore {
    /// `libraries` beside the probe cache (`$XDG_CACHE_HOME/microapp/libraries`), or nil when it cannot be trusted.
    public static func inCacheFolder(of environment: HostEnvironment) -> LibraryStore? {
        LibraryStore(
            folder: ((ProbeCache.defaultFile(in: environment) as NSString).deletingLastPathComponent as NSString)
                .appendingPathComponent("libraries"))
    }
}
