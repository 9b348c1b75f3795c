import MicroappCore
import Synchronization

/// Where this host process keeps the private folders named after it (the copies it loads, its features' folders,
/// pinned links) and sweeps those killed hosts left: its environment's temporary folder, told once by the composition
/// root (`MicroappTool.run`) before the first copy or child. One per process, not a value passed down: the folders
/// carry the pid and go when the process ends (`atexit`, `LeftoverFolders`), whoever made them.
public enum HostScratch {
    private static let chosen = Mutex<String?>(nil)

    /// Keeps this process's private folders in `environment`'s temporary folder.
    public static func use(_ environment: HostEnvironment) {
        chosen.withLock { $0 = environment.temporaryFolder }
    }

    /// The folder told by `use(_:)`; a process whose root told none (a test, a benchmark) uses its own environment's.
    static var folder: String {
        chosen.withLock { chosen in
            if let folder = chosen { return folder }
            let folder = HostEnvironment.process.temporaryFolder
            chosen = folder
            return folder
        }
    }
}
