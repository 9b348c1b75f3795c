import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `--watch`: watches the plugin folders for new `lib<Feature>.so` files (built by any tool) and, with a rebuilder,
/// each running feature's `Plugins/<Feature>/{Sources,Entry}`; a changed source rebuilds that feature alone, and
/// each new library is swapped in by the `HotSwapper`. Progress and compiler errors arrive as notices.
@MainActor
public final class HotSwapWatch {
    private let swapper: HotSwapper
    private let libraryDirectories: [String]
    private let rebuilder: PluginRebuilder?
    /// Feature folder name (`Characters`) by feature id, for the features whose sources are watched.
    private let sourceFolders: [String: String]
    private var watchers: [SourceWatcher] = []
    private var tasks: [Task<Void, Never>] = []
    /// Size, mtime and inode of each library as last seen, so a file is swapped once.
    private var seen: [String: [Int]] = [:]

    /// Watches `libraryDirectories` for new builds; with `rebuilder`, also the sources of the features in
    /// `sourceFolders` (id → folder name in `Plugins/`).
    public init(
        swapper: HotSwapper, libraryDirectories: [String], rebuilder: PluginRebuilder?, sourceFolders: [String: String],
        loaded: [String]
    ) {
        self.swapper = swapper
        self.libraryDirectories = libraryDirectories
        self.rebuilder = rebuilder
        self.sourceFolders = sourceFolders
        for path in loaded { seen[path] = Self.identity(of: path) }
    }

    /// Starts watching; call `stop()` when the app ends.
    public func start() {
        let libraries = SourceWatcher(directories: libraryDirectories, recursive: false) { path in
            let name = (path as NSString).lastPathComponent
            return name.hasPrefix("lib") && name.hasSuffix(".so")
        }
        watchers.append(libraries)
        tasks.append(
            Task { [weak self] in
                for await batch in libraries.changes() {
                    for path in batch.sorted() { await self?.libraryChanged(path) }
                }
            })
        guard let rebuilder, !sourceFolders.isEmpty else { return }
        let folders = sourceFolders.values.flatMap { name in
            ["Sources", "Entry"].map { rebuilder.repository + "/Plugins/\(name)/\($0)" }
        }
        let sources = SourceWatcher(directories: folders) { $0.hasSuffix(".swift") }
        watchers.append(sources)
        tasks.append(
            Task { [weak self] in
                for await batch in sources.changes() { await self?.sourcesChanged(batch) }
            })
    }

    /// Stops the watchers.
    public func stop() {
        watchers.forEach { $0.stop() }
        tasks.forEach { $0.cancel() }
        swapper.stop()
    }

    private func libraryChanged(_ path: String) async {
        let identity = Self.identity(of: path)
        guard let identity, identity != seen[path], swapper.featureID(forLibrary: path) != nil else { return }
        seen[path] = identity
        await swapper.swapLibrary(at: path)
    }

    private func sourcesChanged(_ paths: Set<String>) async {
        guard let rebuilder else { return }
        let changed = sourceFolders.filter { _, name in
            paths.contains { $0.hasPrefix(rebuilder.repository + "/Plugins/\(name)/") }
        }
        for (id, name) in changed.sorted(by: { $0.key < $1.key }) {
            swapper.runtime.post(
                Notice(level: .info, code: "building", message: "Building \(name)…", feature: id))
            let outcome = await Task.detached { rebuilder.rebuild(feature: name) }.value
            guard let library = outcome.library else {
                swapper.runtime.post(
                    Notice(
                        level: .error, code: "build-failed",
                        message:
                            "\(name) did not build (\(outcome.method), \(outcome.milliseconds) ms): \(outcome.errors.first ?? "see the compiler output")",
                        fix: "fix the errors and save again; the running version stays", feature: id,
                        milliseconds: outcome.milliseconds, detail: outcome.errors))
                continue
            }
            swapper.runtime.post(
                Notice(
                    level: .info, code: "built",
                    message: "\(name) built in \(outcome.milliseconds) ms (\(outcome.method))",
                    feature: id, milliseconds: outcome.milliseconds))
            // The library watcher sees the same file: it is swapped here, once.
            seen[library] = Self.identity(of: library)
            await swapper.swapLibrary(at: library, feature: id)
        }
    }

    private static func identity(of path: String) -> [Int]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_ino)]
    }
}
