import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform

/// Where the running host was built: its build folder, the repository (when it was built from one) and the
/// configuration. The CLI's `PluginLocations` is one.
package protocol BuildFolders {
    /// The folder of the running executable (SwiftPM's build folder when run with `swift run`).
    var executableDirectory: URL { get }
    /// The repository root, when the executable sits in its `.build`.
    var repository: URL? { get }
    /// `debug` or `release`.
    var configuration: String { get }
}

/// Rebuilds the plugin libraries that are missing or older than their sources, when run from the repository.
/// `swift run microapp` builds only the executable; this makes it build the features too. It decides what is stale;
/// the builds themselves are `PluginBuilder`'s (SwiftPM's plan replayed, or `swift build`).
package struct StalePlugins {
    let locations: any BuildFolders
    /// The host's environment: which features it sees (`MICROAPP_TEST_FEATURES`), how it rebuilds.
    let environment: HostEnvironment
    /// Where progress and problems go, one line at a time (stderr: under `--ui json` stdout carries only JSON).
    let log: (String) -> Void

    /// The staleness check (and its start-up builds) of the host built in `locations`, running in `environment`.
    package init(
        locations: any BuildFolders, environment: HostEnvironment,
        log: @escaping (String) -> Void = { try? FileHandle.standardError.write(contentsOf: Data(($0 + "\n").utf8)) }
    ) {
        self.locations = locations
        self.environment = environment
        self.log = log
    }

    /// A feature folder whose library needs building, and why.
    struct StaleFeature {
        let name: String
        let isMissing: Bool
        /// True when a module every feature builds on (the SDK, the demo contracts) changed too.
        var sharedChanged = false
    }

    /// The modules every feature in Plugins/ depends on (Package.swift): a change there makes them all stale.
    static let sharedModules = ["Sources/MicroappSDK", "Sources/DemoContracts"]

    /// The features Package.swift declares (or only `only`) whose library is missing or older than a source file.
    /// Each tree is read through its `SourceTreeStamp` record beside the build: one stat per recorded folder and file,
    /// no listing, unless an entry was added, removed or renamed since.
    func staleFeatures(only: String? = nil) -> [StaleFeature] {
        staleFeatures(only: only, listed: featureList)
    }

    /// Package.swift's feature list, read now; nil outside a repository or for a Package.swift without one.
    private var featureList: FeatureList? { locations.repository.flatMap(FeatureList.read(repository:)) }

    /// `staleFeatures(only:)` with Package.swift's list already read (`list`, nil when it has none).
    private func staleFeatures(only: String?, listed list: FeatureList?) -> [StaleFeature] {
        guard let repository = locations.repository else { return [] }
        let names =
            only.map { [$0] } ?? FeatureList.features(listed: list, in: repository, environment: environment)
        let sharedChange = SourceTreeStamp.newest(
            under: Self.sharedModules.map { repository.appendingPathComponent($0).path },
            record: buildState("shared-modules.sources"))
        return names.compactMap { name in
            let folders = FeatureFolders(feature: name, in: repository.path)
            guard Files.exists(folders.sources) else {
                return nil
            }
            let library = locations.executableDirectory.appendingPathComponent(PluginFileName.make(name)).path
            let linked = FileStamp.modified(library)
            guard linked > 0 else { return StaleFeature(name: name, isMissing: true) }
            let built = max(linked, FileStamp.modified(stamp(of: name).path))
            // Only what goes into the library: a changed test or golden preview must not look like a stale build.
            let sources = SourceTreeStamp.newest(
                under: folders.all,
                record: buildState("lib\(name).so.sources"))
            let newest = max(sources, sharedChange)
            return newest > built
                ? StaleFeature(name: name, isMissing: false, sharedChanged: sharedChange > built) : nil
        }
    }

    /// Builds what is stale, each feature's product alone (`swift build --product <Name>`, never the whole package:
    /// a plain `swift build` also links the benchmarks, the monolith and the fuzzer, which the app never loads), its
    /// output on stderr; returns the notice to show in the app when a build failed (`build-failed`: the libraries
    /// built before are loaded) or could not start because Package.swift's feature list names a folder that is gone
    /// (`feature-folder-missing`), nil when it built.
    package func refresh() -> Notice? {
        // Package.swift read once for both (a start from the repository reads it here before anything loads).
        let declared = featureList
        if let unbuildable = checkFeatureList(declared) { return unbuildable }
        let stale = staleFeatures(only: nil, listed: declared)
        guard !stale.isEmpty else { return nil }
        let list = stale.map { $0.name + ($0.isMissing ? " (missing)" : " (changed)") }.joined(separator: ", ")
        log("microapp: building the plugin libraries the app loads: \(list) …")
        log("microapp: \(Self.usualTime(of: stale))")
        if stale.count == 1 {
            return build(stale, product: stale[0].name, replayable: !stale[0].sharedChanged)
        }
        let started = environment.date()
        var failed: [(StaleFeature, String)] = []
        for (index, feature) in stale.enumerated() {
            log(
                "microapp: building \(feature.name) (\(index + 1) of \(stale.count)): swift build\(configurationOption) --product \(feature.name)"
            )
            if let output = buildProduct(feature.name) { failed.append((feature, output)) }
        }
        log(String(format: "microapp: plugins built in %.1f s", environment.date().timeIntervalSince(started)))
        guard !failed.isEmpty else { return nil }
        return failure(of: failed.map(\.0), output: failed.map(\.1).joined(separator: "\n"), in: locations.repository)
    }

    /// ` -c release` when the build folder is not the debug one (as `install` builds it), else nothing.
    private var configurationOption: String {
        locations.configuration == "debug" ? "" : " -c \(locations.configuration)"
    }

    /// How long building `stale` usually takes, said before it starts: about 8 s a feature from scratch (the four demo
    /// features took 30.6 s after the host was built, debug, 2 cores busy; README).
    static func usualTime(of stale: [StaleFeature]) -> String {
        if stale.contains(where: { $0.isMissing || $0.sharedChanged }) {
            return
                "building \(stale.count) feature\(stale.count == 1 ? "" : "s") from scratch usually takes about \(max(10, 8 * stale.count)) s on 2 cores (the four demo features: 31 s); later starts rebuild only a changed feature, in a few seconds"
        }
        return "a changed feature usually rebuilds in a few seconds"
    }

    /// Builds the library of the feature in `Plugins/<name>` alone (`swift build --product <name>`), when it is
    /// missing or older than its sources; returns the notice when the build failed or could not start, as `refresh()`.
    package func build(feature name: String) -> Notice? {
        guard let stale = staleFeatures(only: name).first else { return nil }
        if let unbuildable = checkFeatureList(featureList) { return unbuildable }
        log("microapp: building \(name) alone (\(stale.isMissing ? "missing" : "changed")) …")
        return build([stale], product: name, replayable: !stale.sharedChanged)
    }

    /// Tells each disagreement between Package.swift's feature list (`list`, as read) and Plugins/ on the log; returns
    /// the notice that stops the build when a listed feature's folder is gone (SwiftPM would stop at `invalid custom
    /// path` before building anything), nil when SwiftPM can build (a folder the list does not name is only told: it
    /// is not built).
    private func checkFeatureList(_ list: FeatureList?) -> Notice? {
        guard let repository = locations.repository, let list else { return nil }
        let problems = list.problems(in: repository, environment: environment)
        for problem in problems { log("microapp: \(problem.text)") }
        let missing = problems.filter { $0.code == .featureFolderMissing }
        guard let first = missing.first else { return nil }
        return Notice(
            level: .error, code: first.code,
            message:
                "no plugin was built: \(missing.map(\.message).joined(separator: "; ")); the libraries built before run",
            fix: first.fix, detail: missing.map(\.text))
    }

    /// Builds the one product `product` in the repository, its output on stderr.
    ///
    /// Package.swift declares its features in a list that `microapp new` and `microapp remove` edit, so SwiftPM, which
    /// caches its evaluation of the manifest by the file's contents, sees every feature added or removed by itself.
    private func build(_ stale: [StaleFeature], product: String, replayable: Bool) -> Notice? {
        let started = environment.date()
        // One feature changed in its own folder, same files: replay SwiftPM's own compile and link commands for it
        // (what --watch does), skipping SwiftPM's planning. A library never built, a change in a shared module (it
        // must be rebuilt first), anything else, or a failed replay (for the full diagnostics) goes to swift build.
        if replayable, !stale.contains(where: \.isMissing), let repository = locations.repository,
            replay(product, in: repository)
        {
            stamp([product], since: started)
            return nil
        }
        guard let output = buildProduct(product) else {
            log(String(format: "microapp: plugins built in %.1f s", environment.date().timeIntervalSince(started)))
            return nil
        }
        return failure(of: stale, output: output, in: locations.repository)
    }

    /// Runs `swift build --product <product>` and stamps the library when it built; nil when it did, else its output
    /// (the failure is told on the log).
    private func buildProduct(_ product: String) -> String? {
        guard let repository = locations.repository else { return nil }
        let started = environment.date()
        let result = run(product: product, in: repository)
        guard result.status == 0 else {
            report(
                Problem(
                    code: .buildFailed, subject: "", reason: "`\(result.command)` failed (exit \(result.status))",
                    fix: "fix the compiler errors above; the libraries built before still load")
            )
            return result.output
        }
        stamp([product], since: started)
        return nil
    }

    /// A failed start-up build as the app shows one under `--watch`: the first compiler errors (the same parser), and
    /// which library runs instead.
    private func failure(of stale: [StaleFeature], output: String, in repository: URL?) -> Notice {
        let relative = repository.map { output.replacingOccurrences(of: $0.path + "/", with: "") } ?? output
        let errors = PluginBuilder.firstErrors(in: relative)
        let old = stale.filter { !$0.isMissing }.map(\.name)
        let missing = stale.filter(\.isMissing).map(\.name)
        var runs: [String] = []
        if !old.isEmpty { runs.append("the library built before runs for \(old.joined(separator: ", "))") }
        if !missing.isEmpty { runs.append("\(missing.joined(separator: ", ")) has no library and does not run") }
        return Notice(
            level: .error, code: .buildFailed,
            message:
                "\(stale.map(\.name).joined(separator: ", ")) did not build at start (swift build): \(errors.first ?? "see the compiler output"); \(runs.joined(separator: "; "))",
            fix: "\(runs.joined(separator: "; ")); fix the errors and start again (under --watch, a save rebuilds)",
            detail: errors)
    }

    /// SwiftPM does not relink a library whose objects came out the same (a touched file, a comment): the stamp says
    /// it was built from the sources as they were when the build started, so the next run does not build it again
    /// (and a file saved during the build still counts as changed).
    private func stamp(_ names: [String], since started: Date) {
        for name in names {
            Files.write(Data(), to: stamp(of: name).path, modified: started)
        }
    }

    /// Rebuilds `name` by replaying SwiftPM's plan; false when there is no plan or it did not compile.
    private func replay(_ name: String, in repository: URL) -> Bool {
        guard let outcome = builder(in: repository).replay(feature: name), outcome.library != nil else {
            return false
        }
        log(
            "microapp: \(name) rebuilt in \(outcome.milliseconds) ms (compile and link replayed from SwiftPM's plan)")
        return true
    }

    /// Runs one `swift build --product <product>`, passing its output on to stderr (never stdout: in `--ui json` mode
    /// stdout carries only JSON lines) and keeping it to look at.
    private func run(product: String, in repository: URL) -> (status: Int32, output: String, command: String) {
        do {
            return try builder(in: repository).swiftBuild(product: product, echo: STDERR_FILENO)
        } catch {
            report(
                Problem(
                    code: .buildNotStarted, subject: "",
                    reason: "could not start `swift build`: \(error.problem.reason)",
                    fix: "put the Swift toolchain on PATH"))
            return (-1, "", "swift build")
        }
    }

    /// The one builder of the host's features, in `repository`.
    private func builder(in repository: URL) -> PluginBuilder {
        PluginBuilder(
            repository: repository.path, buildDirectory: locations.executableDirectory.path,
            configuration: locations.configuration, environment: environment)
    }

    /// `problem` told on the log as the CLI tells problems: `microapp: subject: reason`, then the fix.
    private func report(_ problem: Problem) { log("microapp: \(problem.text)") }

    /// `lib<name>.so.built` beside the library: when its sources were last built (not a `.so`, so never loaded).
    private func stamp(of name: String) -> URL {
        locations.executableDirectory.appendingPathComponent("lib\(name).so.built")
    }

    /// A file of the staleness check's own in the build folder (not a `.so`, so never loaded).
    private func buildState(_ name: String) -> String {
        locations.executableDirectory.appendingPathComponent(name).path
    }
}
