import Foundation
import MicroappCore
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
    /// What to rebuild by feature id, for the features whose sources are watched.
    private let sources: [String: FeatureSources]
    private var watchers: [SourceWatcher] = []
    private var tasks: [Task<Void, Never>] = []
    /// The absolute paths the running features' libraries were loaded from.
    private let loaded: Set<String>
    /// Size, mtime and inode of each library as last seen, so a file is swapped once.
    private var seen: [String: [Int]] = [:]
    /// SHA-256 of each watched source as last built, so a save that changed nothing rebuilds nothing.
    private var contents: [String: String] = [:]
    /// How many watchers have started; the `watching` notice goes out when all have.
    private var started = 0
    /// The libraries being rebuilt from their sources: what the library watcher sees of them meanwhile is not a
    /// build of its own (it may be of bytes already saved over).
    private var rebuilding: Set<String> = []
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
        self.sources = sources
        self.loaded = Set(loaded.map { FeatureSources.absolute($0, from: here) })
        polling = SourceWatcher.prefersPolling(in: environment)
        now = environment.now
        for path in self.loaded { seen[path] = FileStamp.of(path: path) }
    }

    /// The folders whose Swift files go into the watched features' libraries.
    private var sourceDirectories: [String] { sources.values.flatMap(\.directories) }

    /// Starts watching; call `stop()` when the app ends.
    public func start() {
        let libraries = SourceWatcher(
            directories: libraryDirectories, recursive: false, polling: polling, now: now,
            accept: { PluginFileName.isPlugin($0) })
        watchers.append(libraries)
        let folders = sourceDirectories
        if !folders.isEmpty {
            let isSource: @Sendable (String) -> Bool = { path in
                folders.contains {
                    path.hasPrefix($0 + "/") && PluginBuilder.isSource(String(path.dropFirst($0.count + 1)))
                }
            }
            for file in folders.flatMap(PluginBuilder.sources(in:)) {
                contents[file] = try? PluginLock.digest(of: file)
            }
            // An editor's save is one event or two within a millisecond (truncate and write, or write and rename),
            // and a save during a build is caught by `NewestBuild`: a short quiet period is enough (a library being
            // linked keeps the default, so it is not read half written).
            watchers.append(
                SourceWatcher(
                    directories: folders, debounce: .milliseconds(15), polling: polling, now: now,
                    accept: isSource))
            sources.values.forEach(Self.primeShadow)
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
        let names = sources.values.map(\.folder).sorted()
        let what =
            names.isEmpty
            ? "new builds swap in" : "saves in \(names.joined(separator: ", ")) rebuild, new builds swap in"
        swapper.runtime.post(
            Notice(
                level: .info, code: .watching, message: "Watching: \(what)",
                detail: sourceDirectories.sorted() + libraryDirectories))
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
        guard let identity, identity != seen[path], loaded.contains(path), !rebuilding.contains(path),
            swapper.featureID(forLibrary: path) != nil
        else { return }
        seen[path] = identity
        await swapper.swapLibrary(at: path)
    }

    private func sourcesChanged(_ paths: Set<String>) async {
        // An editor that saves an unchanged file, a `touch`, a checkout of the same bytes: nothing to build.
        let edited = paths.filter { path in
            let digest = try? PluginLock.digest(of: path)
            defer { contents[path] = digest }
            return digest != contents[path]
        }
        // Said, so a person (and a script) knows the save was seen and why nothing follows. The bytes may also be
        // those a build already took while it ran (a second save during a build is built at once by NewestBuild).
        let unchanged = paths.subtracting(edited).sorted()
        if let first = unchanged.first {
            let names = unchanged.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")
            swapper.runtime.post(
                Notice(
                    level: .info, code: .unchanged,
                    message: "\(names) saved: nothing new to build (the same bytes as last built)",
                    feature: sources.first { $0.value.contains(first) }?.key, detail: unchanged))
        }
        let changed = sources.filter { _, watched in edited.contains(where: watched.contains) }
        for (id, watched) in changed.sorted(by: { $0.key < $1.key }) {
            let name = watched.folder
            swapper.runtime.post(
                Notice(level: .info, code: .building, message: "Building \(name)…", feature: id))
            let written = watched.builder.library(of: name)
            rebuilding.insert(written)
            // Each build is checked against the sources as they are when it ends: one of bytes saved over meanwhile
            // is dropped and made again, so what is announced and swapped is always the outcome of the newest save.
            // Seconds (minutes on the `swift build` fallback): on a thread of its own, not the cooperative pool.
            // The new build is prepared (copied, lock-checked, probed) on the build's thread as soon as it is made, so
            // the swap below only maps it (see `HotSwapper.Preparation`).
            let preparation = swapper.preparation(for: id)
            let (newest, prepared) = await BlockingWork.run {
                let newest = NewestBuild.run(
                    digests: { Self.digests(of: watched) }, build: { watched.builder.rebuild(feature: name) })
                return (newest, newest.result.library.map(preparation.prepare))
            }
            rebuilding.remove(written)
            // A replay or `swift build` instead of the shadow: it may not be compiled for today's plan yet.
            if newest.result.method != "shadow" { Self.primeShadow(watched) }
            contents.merge(newest.digests) { $1 }
            // The library watcher sees the same file: it is swapped here, once (a dropped build's file is not new).
            seen[written] = FileStamp.of(path: written)
            let outcome = newest.result
            let skipped = newest.superseded == 0 ? "" : ", \(newest.superseded) build(s) of older saves dropped"
            guard let prepared else {
                swapper.runtime.post(
                    Notice(
                        level: .error, code: .buildFailed,
                        message:
                            "\(name) did not build (\(outcome.method), \(outcome.milliseconds) ms\(skipped)): \(outcome.errors.first ?? "see the compiler output")",
                        fix: "fix the errors and save again; the running version stays", feature: id,
                        milliseconds: outcome.milliseconds, detail: outcome.errors))
                continue
            }
            swapper.runtime.post(
                Notice(
                    level: .info, code: .built,
                    message:
                        "\(name) built in \(outcome.milliseconds) ms (\(([outcome.method] + outcome.steps).joined(separator: ", "))\(skipped))",
                    feature: id, milliseconds: outcome.milliseconds))
            await swapper.swap(prepared)
        }
    }

    /// Compiles the shadow build of `watched` on a thread of its own at the lowest priority (whole-module the first
    /// time: seconds, which must hold neither the main actor nor the cooperative pool).
    nonisolated private static func primeShadow(_ watched: FeatureSources) {
        Thread.detachNewThread { watched.builder.primeShadow(feature: watched.folder) }
    }

    /// SHA-256 of each source of `watched`, by path.
    nonisolated private static func digests(of watched: FeatureSources) -> [String: String] {
        var digests: [String: String] = [:]
        for file in watched.directories.flatMap(PluginBuilder.sources(in:)) {
            digests[file] = try? PluginLock.digest(of: file)
        }
        return digests
    }

}
