import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform

/// The `--watch` loop (a `SourceWatcher`, then the `PluginBuilder`, then the `HotSwapper`): watches the plugin
/// folders for new `lib<Feature>.so` files (built by any tool) and, for each running feature whose library SwiftPM
/// built, its sources (`Plugins/<Feature>/{Sources,Entry}` of a repository, or the folders of a package of its own,
/// see `FeatureSources`); a changed source rebuilds that feature alone, and each new library is swapped in by the
/// `HotSwapper`. Progress and compiler errors arrive as notices.
@MainActor
public final class WatchLoop {
    private let swapper: HotSwapper
    private let libraryDirectories: [String]
    /// The features whose sources are watched, and their builds.
    private let rebuilds: SourceRebuilds
    private var watchers: [SourceWatcher] = []
    private var tasks: [Task<Void, Never>] = []
    /// The absolute paths the running features' libraries were loaded from.
    private let loaded: Set<String>
    /// Size, mtime and inode of each library as last seen, so a file is swapped once.
    private var seen: [String: [Int]] = [:]
    /// How many watchers have started; the `watching` notice goes out when all have.
    private var started = 0
    /// Whether the watchers poll instead of using inotify (`SourceWatcher.prefersPolling(in:)`).
    private let polling: Bool
    /// The environment's clock, which the watchers measure quiet periods on.
    private let now: @Sendable () -> ContinuousClock.Instant

    /// Watches `libraryDirectories` for new builds, and the sources of the features in `sources` (by feature id);
    /// relative paths are from `environment`'s current directory.
    public init(
        swapper: HotSwapper, libraryDirectories: [String], sources: [String: FeatureSources], loaded: [String],
        environment: HostEnvironment
    ) {
        self.swapper = swapper
        // Absolute, as the builder names what it writes: a rebuilt library is then seen as known, and swapped once.
        let here = environment.currentDirectory
        self.libraryDirectories = libraryDirectories.map { FeatureSources.absolute($0, from: here) }
        rebuilds = SourceRebuilds(sources: sources)
        self.loaded = Set(loaded.map { FeatureSources.absolute($0, from: here) })
        polling = SourceWatcher.prefersPolling(in: environment)
        now = environment.now
        for path in self.loaded { seen[path] = FileStamp.of(path: path) }
    }

    /// Starts watching; call `stop()` when the app ends.
    public func start() {
        let libraries = SourceWatcher(
            directories: libraryDirectories, recursive: false, polling: polling, now: now,
            accept: { PluginFileName.isPlugin($0) })
        watchers.append(libraries)
        if let sources = rebuilds.watcher(polling: polling, now: now) {
            rebuilds.prime()
            watchers.append(sources)
        }
        for watcher in watchers {
            let isLibraries = watcher === libraries
            tasks.append(
                Task { [weak self] in
                    for await batch in watcher.changes() {
                        guard let self else { return }
                        if batch.isEmpty {
                            self.watcherStarted()
                        } else if isLibraries {
                            for path in batch.sorted() { await self.libraryChanged(path) }
                        } else {
                            await self.sourcesChanged(batch)
                        }
                    }
                })
        }
    }

    /// Says what is watched once every watcher has started: from then on a save or a new build is seen.
    private func watcherStarted() {
        started += 1
        guard started == watchers.count else { return }
        let names = rebuilds.sources.values.map(\.folder).sorted()
        let what =
            names.isEmpty
            ? "new builds swap in" : "saves in \(names.joined(separator: ", ")) rebuild, new builds swap in"
        swapper.runtime.post(
            Notice(
                level: .info, code: .watching, message: "Watching: \(what)",
                detail: rebuilds.directories.sorted() + libraryDirectories))
    }

    /// Stops the watchers.
    public func stop() {
        watchers.forEach { $0.stop() }
        tasks.forEach { $0.cancel() }
        swapper.stop()
    }

    private func libraryChanged(_ path: String) async {
        let identity = FileStamp.of(path: path)
        // Only a new file at the path a running feature was loaded from: a library of the same name in another
        // watched folder (beside the executable while solo runs one from --plugins, say) is not its build.
        guard let identity, identity != seen[path], loaded.contains(path), !rebuilds.rebuilding.contains(path),
            swapper.featureID(forLibrary: path) != nil
        else { return }
        seen[path] = identity
        await swapper.swapLibrary(at: path)
    }

    private func sourcesChanged(_ paths: Set<String>) async {
        let swapper = swapper
        let written = await rebuilds.rebuild(
            paths, post: swapper.runtime.post,
            preparing: { feature in
                let preparation = swapper.preparation(for: feature)
                return { preparation.prepare($0) }
            },
            built: { _, prepared in await swapper.swap(prepared) })
        // The library watcher sees the same files: each was swapped here, once (a dropped build's file is not new).
        for library in written { seen[library] = FileStamp.of(path: library) }
    }
}
