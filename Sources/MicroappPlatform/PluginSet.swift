import Foundation
import MicroappCore
import MicroappSDK

/// Finding and loading a set of plugin libraries, and resolving them together.
public enum PluginSet {
    /// What loading a set of files gave.
    public struct LoadReport: Sendable {
        /// Libraries that loaded and described themselves.
        public var images: [PluginImage]
        /// Files that could not be used, one diagnostic each.
        public var problems: [Diagnostic]
        /// What did not stop a library from loading but should be looked at (a folder whose lock is gone).
        public var warnings: [Diagnostic] = []
        /// What its folder's lock says about each library that loaded, by path (`absent` when locks were not read).
        public var locks: [String: LibraryTrust.Lock] = [:]

        /// What its folder's lock says about the library at `path`.
        public func lock(of path: String) -> LibraryTrust.Lock { locks[path] ?? .absent }
    }

    /// The `lib*.so` files in `directories` (sorted, the SDK itself left out).
    public static func discover(in directories: [String]) -> [String] {
        directories.flatMap { directory -> [String] in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            return
                names
                .filter { $0.hasPrefix("lib") && $0.hasSuffix(".so") && $0 != "libMicroappSDK.so" }
                .sorted()
                .map { (directory as NSString).appendingPathComponent($0) }
        }
    }

    /// Loads each file; a file that fails does not stop the others. A folder's `plugins.lock`, when there is one,
    /// is enforced unless `enforcingLocks` is false (for `microapp lock` itself). With a `lockHistory`, each locked
    /// folder is remembered there, and one that had a lock and has none now gets a warning.
    public static func load(
        _ paths: [String], enforcingLocks: Bool = true, lockHistory: LockHistory? = nil
    ) -> LoadReport {
        load(paths, enforcingLocks: enforcingLocks, lockHistory: lockHistory) { _ in nil }
    }

    /// Like `load(_:enforcingLocks:)`, but each library is first loaded in a child process (or known from the
    /// cache): one that crashes or hangs there is refused and never loaded in this process.
    public static func load(
        _ paths: [String], enforcingLocks: Bool = true, lockHistory: LockHistory? = nil,
        screening: inout PluginScreening
    ) -> LoadReport {
        load(paths, enforcingLocks: enforcingLocks, lockHistory: lockHistory) { screening.verdict(for: $0) }
    }

    /// `load(_:enforcingLocks:lockHistory:screening:)` (without probes when `screening` is nil) on a thread of its
    /// own, awaited: lock hashes, probe processes and dlopen never hold the caller's actor, so the main actor goes
    /// on while a start-up probe runs. Answers the report and the screening with the verdicts it learned.
    public static func loadOffActor(
        _ paths: [String], enforcingLocks: Bool = true, lockHistory: LockHistory? = nil, screening: PluginScreening?
    ) async -> (report: LoadReport, screening: PluginScreening?) {
        await BlockingWork.run { () -> (report: LoadReport, screening: PluginScreening?) in
            guard var screening else {
                return (load(paths, enforcingLocks: enforcingLocks, lockHistory: lockHistory), nil)
            }
            let report = load(paths, enforcingLocks: enforcingLocks, lockHistory: lockHistory, screening: &screening)
            return (report, screening)
        }
    }

    /// What the folders' `plugins.lock` files say about a set of library files, read before any of them is opened or
    /// started: the in-process and the isolated launch paths both go through it.
    public struct LockCheck: Sendable {
        /// The files the locks let through, in the order given.
        public var allowed: [String] = []
        /// What its folder's lock says about each file let through, by path (none: its folder has no lock).
        public var locks: [String: LibraryTrust.Lock] = [:]
        /// The keys a trusted lock's entry grants each file's feature, by path (an ignored lock grants nothing).
        public var grants: [String: [String]] = [:]
        /// Files a trusted lock does not pin (`lock-mismatch`), and locks that cannot be read.
        public var problems: [Diagnostic] = []
        /// Ignored locks (writable by someone else), and folders that had a lock and have none now.
        public var warnings: [Diagnostic] = []

        /// What its folder's lock says about the library at `path`.
        public func lock(of path: String) -> LibraryTrust.Lock { locks[path] ?? .absent }
    }

    /// Checks each file against its folder's `plugins.lock`: a trusted lock lets through only the libraries whose
    /// bytes it pins; a lock `FileTrust` does not believe is ignored (its libraries count as not pinned, with a
    /// warning). With a `lockHistory`, each locked folder is remembered there, and one that had a lock and has none
    /// now gets a warning. Hashes every locked file: call it off the main actor.
    public static func checkLocks(_ paths: [String], lockHistory: LockHistory? = nil) -> LockCheck {
        var check = LockCheck()
        var locks: [String: PluginLock?] = [:]
        var ignoredLocks: [String: String] = [:]
        for path in paths {
            let folder = (path as NSString).deletingLastPathComponent
            do {
                if locks[folder] == nil, let distrust = PluginLock.distrust(in: folder) {
                    // Ignored: its libraries load as if unlocked, counted as not pinned.
                    check.warnings.append(distrust.warning)
                    ignoredLocks[folder] = distrust.weakness
                    locks[folder] = .some(nil)
                } else if locks[folder] == nil {
                    let lock = try PluginLock.load(in: folder)
                    locks[folder] = .some(lock)
                    if let warning = remember(lock, of: folder, in: lockHistory) { check.warnings.append(warning) }
                }
            } catch {
                check.problems.append(error)
                continue
            }
            if let lock = locks[folder] ?? nil {
                if let problem = lock.problem(with: path) {
                    check.problems.append(problem)
                    continue
                }
                check.locks[path] = lock.pin(of: path)
                check.grants[path] = lock.grants(of: path)
            } else if let ignored = ignoredLocks[folder] {
                check.locks[path] = .untrusted(ignored)
            }
            check.allowed.append(path)
        }
        return check
    }

    private static func load(
        _ paths: [String], enforcingLocks: Bool, lockHistory: LockHistory?,
        screen: (String) -> PluginProbe.Verdict?
    ) -> LoadReport {
        var report = LoadReport(images: [], problems: [])
        var allowed = paths
        if enforcingLocks {
            let check = checkLocks(paths, lockHistory: lockHistory)
            (allowed, report.locks, report.problems, report.warnings) = (
                check.allowed, check.locks, check.problems, check.warnings
            )
        }
        var opened: [OpenedPlugin] = []
        for path in allowed {
            switch screen(path) {
            case .blocked(let problem), .refused(let problem):
                report.problems.append(problem)
                continue
            case .usable, nil:
                break
            }
            switch PluginLoader.open(path, sdk: .current) {
            case .success(let plugin): opened.append(plugin)
            case .failure(let problem): report.problems.append(problem)
            }
        }
        for plugin in opened {
            switch PluginLoader.describe(plugin) {
            case .success(let image): report.images.append(image)
            case .failure(let problem): report.problems.append(problem)
            }
        }
        return report
    }

    /// Records a locked folder in `history`, or says that an unlocked one had a lock before; nil when all is well.
    private static func remember(_ lock: PluginLock?, of folder: String, in history: LockHistory?) -> Diagnostic? {
        guard let history else { return nil }
        guard lock != nil else { return history.problem(withUnlocked: folder) }
        do {
            try history.record(folder)
            return nil
        } catch {
            return Diagnostic(
                .lockMissing, subject: history.file,
                reason: "could not remember that \(folder) is locked (\(error.localizedDescription))",
                fix:
                    "make \((history.file as NSString).deletingLastPathComponent) writable, so a deleted lock is noticed"
            )
        }
    }

    /// Resolves loaded images, each trusted as `trust` says, against what `container` offers, under the host's `rules`.
    @MainActor
    public static func resolve(
        _ images: [PluginImage], container: Container, rules: ResolutionRules = ResolutionRules(),
        trust: (PluginImage) -> FeatureTrust
    ) -> Resolution {
        DependencyResolver.resolve(
            images.map { Candidate(manifest: $0.manifest, path: $0.path, trust: trust($0)) },
            hostOffers: container.offers, rules: rules)
    }
}
