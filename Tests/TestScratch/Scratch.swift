import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The one folder a test process writes to: every test's temporary files, and the temporary, cache and data folders
/// of the processes tests start. Made fresh (`mkdtemp`, mode 0700) under `$TMPDIR` the first time it is asked for and
/// removed with everything in it when the test process exits, so a run leaves nothing behind and never touches the
/// user's own `$XDG_CACHE_HOME`.
public enum Scratch {
    /// The root folder of this test process.
    public static let root: URL = {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/microapp-tests-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            fatalError("cannot make a scratch folder under \(base): \(String(cString: strerror(errno))); set TMPDIR")
        }
        let path = String(cString: made)
        rootPath.withLock { $0 = path }
        atexit { removeRoot() }
        return URL(fileURLWithPath: path)
    }()

    /// A new, empty folder `<prefix>-<uuid>` under the root, only its user may enter (0700, like the root).
    public static func folder(_ prefix: String) -> URL {
        let folder = root.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return folder
    }

    /// The demo app's features: the only ones of the repository the host's tests see, whatever a person added to
    /// Plugins/ (`microapp new Profile`, then a build, puts libProfile.so beside the test runner).
    public static let demoFeatures = ["Auth", "Characters", "Search", "Settings"]

    /// What a process started by a test should have in its environment: its temporary files, caches (probe
    /// verdicts, swap copies), data and state (locked folders) under the root, shared by the processes of this run;
    /// `MICROAPP_TEST_FEATURES`, so that a host sees only the demo's features of its repository (its list, its
    /// folders and the libraries of its build folder); and a request deadline of 60 s for isolated features instead of
    /// 2 s: on a loaded machine a feature child hashing a password (sign-up) took longer than 2 s, was stopped as
    /// hung, and a journey test failed on a claim it was not about. Tests of the watchdog set their own deadline.
    public static var environment: [String: String] {
        let path = root.path
        for name in ["tmp", "cache", "data", "state"] {
            try? FileManager.default.createDirectory(atPath: "\(path)/\(name)", withIntermediateDirectories: true)
        }
        return [
            "TMPDIR": "\(path)/tmp", "XDG_CACHE_HOME": "\(path)/cache", "XDG_DATA_HOME": "\(path)/data",
            "XDG_STATE_HOME": "\(path)/state", "MICROAPP_TEST_FEATURES": demoFeatures.joined(separator: ","),
            "MICROAPP_FEATURE_DEADLINE_MS": "60000",
        ]
    }

    /// This process's environment with `environment` and then `extra` over it: for `Process.environment`.
    public static func childEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(environment) { $1 }.merging(extra) { $1 }
    }

    private static let rootPath = Mutex<String?>(nil)

    private static func removeRoot() {
        guard let path = rootPath.withLock({ $0 }) else { return }
        remove(path)
    }

    /// Removes the folder at `path` with everything in it, also what a test made read-only.
    public static func remove(_ path: String) {
        makeWritable(path)
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Tests take write permission away to test refusals; give it back so the tree can be removed.
    private static func makeWritable(_ path: String) {
        chmod(path, 0o700)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
            var status = stat()
            let child = "\(path)/\(name)"
            if lstat(child, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR { makeWritable(child) }
        }
    }
}
