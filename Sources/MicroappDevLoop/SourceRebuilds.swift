import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform

/// What `--watch` does with a save, for the app (`WatchLoop`) and the preview gallery alike: a save that changed
/// bytes rebuilds the feature whose sources it is in (the newest save wins, see `NewestBuild`); progress and
/// compiler errors are notices (`building`, `built`, `build-failed`, `unchanged`).
@MainActor
package final class SourceRebuilds {
    /// What to rebuild by feature id.
    package let sources: [String: FeatureSources]
    /// SHA-256 of each watched source as last built, so a save that changed nothing rebuilds nothing.
    private var contents: [String: String] = [:]
    /// The libraries being rebuilt now: what a library watcher sees of them meanwhile is not a build of its own.
    package private(set) var rebuilding: Set<String> = []

    /// Rebuilds the features of `sources` (by feature id).
    package init(sources: [String: FeatureSources]) {
        self.sources = sources
    }

    /// The folders whose Swift files go into the features' libraries.
    package var directories: [String] { sources.values.flatMap(\.directories) }

    /// Records what each source holds now and starts each feature's shadow build, before the first save.
    package func prime() {
        for file in directories.flatMap(PluginBuilder.sources(in:)) {
            contents[file] = try? PluginLock.digest(of: file)
        }
        sources.values.forEach(Self.primeShadow)
    }

    /// Watches the sources (quiet periods measured on `now`); nil when there are none.
    package func watcher(polling: Bool, now: @escaping @Sendable () -> ContinuousClock.Instant) -> SourceWatcher? {
        let folders = directories
        guard !folders.isEmpty else { return nil }
        let isSource: @Sendable (String) -> Bool = { path in
            folders.contains {
                path.hasPrefix($0 + "/") && PluginBuilder.isSource(String(path.dropFirst($0.count + 1)))
            }
        }
        // An editor's save is one event or two within a millisecond (truncate and write, or write and rename), and a
        // save during a build is caught by `NewestBuild`: a short quiet period is enough.
        return SourceWatcher(
            directories: folders, debounce: .milliseconds(15), polling: polling, now: now, accept: isSource)
    }

    /// Rebuilds each feature with an edited source among `paths`, posting its notices with `post`. Each new library
    /// is handed to `prepare` (from `preparing(feature)`) on the build's thread, and what that gives to `built`.
    /// Returns the library paths written (built or not), whose files a library watcher must not take for new builds.
    @discardableResult
    package func rebuild<Prepared: Sendable>(
        _ paths: Set<String>, post: (Notice) -> Void,
        preparing: (_ feature: String) -> @Sendable (_ library: String) -> Prepared?,
        built: (_ feature: String, _ prepared: Prepared) async -> Void
    ) async -> [String] {
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
            post(
                Notice(
                    level: .info, code: .unchanged,
                    message: "\(names) saved: nothing new to build (the same bytes as last built)",
                    feature: sources.first { $0.value.contains(first) }?.key, detail: unchanged))
        }
        var written: [String] = []
        let changed = sources.filter { _, watched in edited.contains(where: watched.contains) }
        for (id, watched) in changed.sorted(by: { $0.key < $1.key }) {
            let name = watched.folder
            post(Notice(level: .info, code: .building, message: "Building \(name)…", feature: id))
            let library = watched.builder.library(of: name)
            rebuilding.insert(library)
            // Each build is checked against the sources as they are when it ends: one of bytes saved over meanwhile
            // is dropped and made again, so what is announced is always the outcome of the newest save. Seconds
            // (minutes on the `swift build` fallback): on a thread of its own, not the cooperative pool. The new
            // build is prepared there as soon as it is made.
            let prepare = preparing(id)
            let (newest, prepared) = await BlockingWork.run {
                let newest = NewestBuild.run(
                    digests: { Self.digests(of: watched) }, build: { watched.builder.rebuild(feature: name) })
                return (newest, newest.result.library.flatMap(prepare))
            }
            rebuilding.remove(library)
            written.append(library)
            // A replay or `swift build` instead of the shadow: it may not be compiled for today's plan yet.
            if newest.result.method != "shadow" { Self.primeShadow(watched) }
            contents.merge(newest.digests) { $1 }
            let outcome = newest.result
            let skipped = newest.superseded == 0 ? "" : ", \(newest.superseded) build(s) of older saves dropped"
            guard let prepared else {
                post(
                    Notice(
                        level: .error, code: .buildFailed,
                        message:
                            "\(name) did not build (\(outcome.method), \(outcome.milliseconds) ms\(skipped)): \(outcome.errors.first ?? "see the compiler output")",
                        fix: "fix the errors and save again; the running version stays", feature: id,
                        milliseconds: outcome.milliseconds, detail: outcome.errors))
                continue
            }
            post(
                Notice(
                    level: .info, code: .built,
                    message:
                        "\(name) built in \(outcome.milliseconds) ms (\(([outcome.method] + outcome.steps).joined(separator: ", "))\(skipped))",
                    feature: id, milliseconds: outcome.milliseconds))
            await built(id, prepared)
        }
        return written
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
