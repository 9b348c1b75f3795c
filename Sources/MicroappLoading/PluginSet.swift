import Foundation
import MicroappCore
import MicroappPlatform
import MicroappSDK

/// Finding and loading a set of plugin libraries, and resolving them together.
public enum PluginSet {
    /// What loading a set of files gave.
    public struct LoadReport: Sendable {
        /// Libraries that loaded and described themselves.
        public var images: [PluginImage]
        /// Files that could not be used, one diagnostic each.
        public var problems: [Problem]
        /// What did not stop a library from loading but should be looked at (a folder whose lock is gone).
        public var warnings: [Problem] = []
        /// What its folder's lock says about each library that loaded, by path (`absent` when locks were not read).
        public var locks: [String: LibraryTrust.Lock] = [:]

        /// What its folder's lock says about the library at `path`.
        public func lock(of path: String) -> LibraryTrust.Lock { locks[path] ?? .absent }
    }

    /// The `lib*.so` files in `directories` (sorted, the SDK itself left out).
    public static func discover(in directories: [String]) -> [String] {
        directories.flatMap { directory -> [String] in
            let names = Files.names(in: directory)
            return
                names
                .filter(PluginFileName.isPlugin)
                .sorted()
                .map { (directory as NSString).appendingPathComponent($0) }
        }
    }

    /// Loads each file; a file that fails does not stop the others. Each is read once into a private copy
    /// (`LibraryCopy`), checked against its folder's `plugins.lock` when there is one (unless `enforcingLocks` is
    /// false), and the copy is what is mapped. With a `lockHistory`, each locked folder is remembered there, and one
    /// that had a lock and has none now gets a warning.
    public static func load(
        _ paths: [String], enforcingLocks: Bool = true, lockHistory: LockHistory? = nil
    ) -> LoadReport {
        load(checkLocks(paths, lockHistory: lockHistory, enforcing: enforcingLocks)) { _ in nil }
    }

    /// Like `load(_:enforcingLocks:)`, but each library's copy is first loaded in a sandboxed child process (or its
    /// bytes known from the cache): one that crashes or hangs there is refused and never loaded in this process.
    public static func load(
        _ paths: [String], enforcingLocks: Bool = true, lockHistory: LockHistory? = nil,
        screening: inout PluginScreening
    ) -> LoadReport {
        load(checkLocks(paths, lockHistory: lockHistory, enforcing: enforcingLocks)) { screening.screen($0) }
    }

    /// Screens and loads the copies a lock check let through (`check.copies` of `check.allowed`), on this thread; the
    /// report carries the check's locks, problems and warnings. `mapping` as for `loadOffActor(_:screening:mapping:)`.
    public static func load(_ check: LockCheck, mapping: Bool = true, screening: inout PluginScreening) -> LoadReport {
        load(check, mapping: mapping) { screening.screen($0) }
    }

    /// Loads the copies a lock check let through (`check.copies` of `check.allowed`), screened first when `screening`
    /// is given, on a thread of its own, awaited: probe processes and dlopen never hold the caller's actor, so the
    /// main actor goes on while a start-up probe runs. Answers the report (with the check's locks, problems and
    /// warnings) and the screening with the verdicts it learned. With `mapping` false (the inspection commands), a
    /// library the probe cache describes is not mapped: its image carries the recorded manifest, and none of its code
    /// runs in this process.
    public static func loadOffActor(
        _ check: LockCheck, screening: PluginScreening?, mapping: Bool = true
    ) async -> (report: LoadReport, screening: PluginScreening?) {
        await BlockingWork.run { () -> (report: LoadReport, screening: PluginScreening?) in
            guard var screening else { return (load(check) { _ in nil }, nil) }
            let report = load(check, mapping: mapping) { screening.screen($0) }
            return (report, screening)
        }
    }

    /// `loadOffActor(_:screening:)` of the libraries at `paths`, each read once into a private copy and checked
    /// against its folder's lock (unless `enforcingLocks` is false) on the same thread.
    public static func loadOffActor(
        _ paths: [String], enforcingLocks: Bool = true, lockHistory: LockHistory? = nil, screening: PluginScreening?
    ) async -> (report: LoadReport, screening: PluginScreening?) {
        await BlockingWork.run { () -> (report: LoadReport, screening: PluginScreening?) in
            let check = checkLocks(paths, lockHistory: lockHistory, enforcing: enforcingLocks)
            guard var screening else { return (load(check) { _ in nil }, nil) }
            let report = load(check) { screening.screen($0) }
            return (report, screening)
        }
    }

    /// What the folders' `plugins.lock` files say about a set of library files, each read once into a private copy
    /// first: the in-process and the isolated launch paths both go through it, and use only the copies.
    public struct LockCheck: Sendable {
        /// The files the locks let through, in the order given.
        public var allowed: [String] = []
        /// The private copy of each file let through, by path: the bytes hashed and checked, the only ones to map.
        public var copies: [String: LibraryCopy] = [:]
        /// What its folder's lock says about each file let through, by path (none: its folder has no lock).
        public var locks: [String: LibraryTrust.Lock] = [:]
        /// The keys a trusted lock's entry grants each file's feature, by path (an ignored lock grants nothing).
        public var grants: [String: [String]] = [:]
        /// Files that could not be read or copied, files a trusted lock does not pin (`lock-mismatch`), and locks
        /// that cannot be read.
        public var problems: [Problem] = []
        /// Ignored locks (writable by someone else), and folders that had a lock and have none now.
        public var warnings: [Problem] = []

        /// An empty check, to fill in (a placement decided from plain values in a test).
        public init() {}

        /// What its folder's lock says about the library at `path`.
        public func lock(of path: String) -> LibraryTrust.Lock { locks[path] ?? .absent }

        /// The copies of `paths` (those let through), in that order.
        public func copies(of paths: [String]) -> [LibraryCopy] { paths.compactMap { copies[$0] } }

        /// The files let through that `keep` accepts, with their copies, locks and grants, and none of the problems or
        /// warnings (already reported from the whole check): what one launch path loads.
        public func only(_ keep: (String) -> Bool) -> LockCheck {
            var part = LockCheck()
            part.allowed = allowed.filter(keep)
            part.copies = copies.filter { keep($0.key) }
            part.locks = locks.filter { keep($0.key) }
            part.grants = grants.filter { keep($0.key) }
            return part
        }
    }

    /// Reads each file once into a private copy (`LibraryCopy`: opened with `O_NOFOLLOW`, a regular file owned as
    /// `FileTrust` requires, hashed while copied) and checks the copy's digest against its folder's `plugins.lock`: a
    /// trusted lock lets through only the libraries whose bytes it pins; a lock `FileTrust` does not believe is
    /// ignored (its libraries count as not pinned, with a warning). `enforcing` false (tests, tools) copies without
    /// reading the locks. With a `lockHistory`, each locked folder is remembered there, and one that had a lock and
    /// has none now gets a warning. With a `store`, a library unchanged since the store copied it is neither read nor
    /// hashed (`LibraryCopy.make(_:store:)`). Reads every file the store does not know: call it off the main actor.
    public static func checkLocks(
        _ paths: [String], lockHistory: LockHistory? = nil, enforcing: Bool = true, store: LibraryStore? = nil
    ) -> LockCheck {
        // An update holds its folder's update lock while it renames a library and pins it: holding it shared here,
        // the libraries and the lock are read both before or both after, never one of each.
        let folders = Set(paths.map(PathParts.folder(of:)))
        return FileLock.withSharedLocks(enforcing ? folders.sorted().map(PluginLock.updateLock) : []) {
            checkLocksHeld(paths, lockHistory: lockHistory, enforcing: enforcing, store: store)
        }
    }

    private static func checkLocksHeld(
        _ paths: [String], lockHistory: LockHistory?, enforcing: Bool, store: LibraryStore?
    ) -> LockCheck {
        var check = LockCheck()
        var locks: [String: PluginLock?] = [:]
        var ignoredLocks: [String: String] = [:]
        for path in paths {
            let copy: LibraryCopy
            switch LibraryCopy.make(path, store: store) {
            case .success(let made): copy = made
            case .failure(let problem):
                check.problems.append(problem)
                continue
            }
            guard enforcing else {
                check.allowed.append(path)
                check.copies[path] = copy
                continue
            }
            let folder = PathParts.folder(of: path)
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
                if let problem = lock.problem(with: path, sha256: copy.sha256) {
                    // A file that cannot load at all (truncated, not a shared object) says so first: locking it again
                    // would not help, and the lock's fix would send the person there.
                    if var broken = SharedObjectCheck.problem(at: copy.path), broken.code == .notSharedObject {
                        broken.subject = path
                        check.problems.append(broken)
                    } else {
                        check.problems.append(problem)
                    }
                    continue
                }
                check.locks[path] = lock.pin(of: path)
                check.grants[path] = lock.grants(of: path)
            } else if let ignored = ignoredLocks[folder] {
                check.locks[path] = .untrusted(ignored)
            }
            check.allowed.append(path)
            check.copies[path] = copy
        }
        return check
    }

    /// Screens and loads the copies `check` let through; the report carries the check's locks, problems and warnings.
    /// A library whose screening came with its recorded description is mapped without reading its symbols or
    /// decoding its manifest again (`mapping` false: not mapped at all); the others are opened first and decoded
    /// after, in the order given.
    private static func load(
        _ check: LockCheck, mapping: Bool = true,
        screen: (LibraryCopy) -> (verdict: PluginProbe.Verdict, description: LibraryDescription?)?
    ) -> LoadReport {
        var report = LoadReport(images: [], problems: check.problems, warnings: check.warnings, locks: check.locks)
        // Described images are ready; opened ones are decoded once all are open (see `PluginLoader.describe`).
        var loaded: [(image: PluginImage?, opened: OpenedPlugin?)] = []
        for copy in check.copies(of: check.allowed) {
            let screened = screen(copy)
            switch screened?.verdict {
            case .blocked(let problem), .refused(let problem):
                report.problems.append(problem)
                continue
            case .usable, nil:
                break
            }
            if let description = screened?.description {
                let described =
                    mapping
                    ? PluginLoader.open(copy, described: description, sdk: .current)
                    : PluginLoader.unmapped(copy, described: description).map { .success($0) }
                switch described {
                case .success(let image):
                    loaded.append((image, nil))
                    continue
                case .failure(let problem):
                    report.problems.append(problem)
                    continue
                case nil: break
                }
            }
            switch PluginLoader.open(copy, sdk: .current) {
            case .success(let plugin): loaded.append((nil, plugin))
            case .failure(let problem): report.problems.append(problem)
            }
        }
        for item in loaded {
            let described = item.image.map { .success($0) } ?? PluginLoader.describe(item.opened!)
            switch described {
            case .success(let image): report.images.append(image)
            case .failure(let problem): report.problems.append(problem)
            }
        }
        return report
    }

    /// Records a locked folder in `history`, or says that an unlocked one had a lock before; nil when all is well.
    private static func remember(_ lock: PluginLock?, of folder: String, in history: LockHistory?) -> Problem? {
        guard let history else { return nil }
        guard lock != nil else { return history.problem(withUnlocked: folder) }
        do {
            try history.record(folder)
            return nil
        } catch {
            return Problem(
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
