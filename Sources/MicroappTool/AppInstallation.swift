import CommandLineSpec
import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappHost
import MicroappLoading
import MicroappPlatform
import MicroappShipping

/// What an install copies: one configuration's host executable and the plugin libraries it would load beside it.
/// From a checkout, the build folder of `--configuration` (release by default: `swift build -c release` builds the
/// host and every feature); from an installed app, that install itself, as it is.
struct InstallSource: Sendable {
    /// The host executable (`.build/release/microapp`, or an app's own host).
    var executable: String
    /// `release` or `debug`.
    var configuration: String
    /// The plugin libraries the host loads from its own folder (a build folder's leftovers left out).
    var plugins: [String]
    /// The checkout's `.build`, never a place to install into; nil for an installed app.
    var buildRoot: String?

    /// `--configuration release|debug`.
    static let configuration = OptionSpec.value(
        "--configuration", "NAME",
        .choice(["release", "debug"], noun: "a configuration", fix: "write --configuration release or debug"),
        help: "the build folder to take the host and its plugins from (default release)"
    ).abbreviated("-c")

    /// The source the running host names: its checkout's build folder of `arguments`' configuration, or its install.
    /// In a checkout it first builds what it takes, one product each (`build`); refused when a build fails or the
    /// build folder still has no host.
    static func find(_ arguments: Arguments, building features: [String]? = nil) throws(Problem) -> InstallSource {
        let current = PluginLocations.current()
        let name = FileFacts.executable.lastPathComponent
        let wanted = arguments[configuration]
        guard let repository = current.repository else {
            let record = InstallRecord.load(
                current.pluginDirectory.deletingLastPathComponent().appendingPathComponent(InstalledLayout.recordName)
                    .path)
            let built = record?.configuration ?? current.configuration
            if let wanted, wanted != built {
                throw Problem.usage(
                    "this \(name) is an installed \(built) build: it installs itself as it is",
                    fix: "leave out --configuration, or run `swift run -c \(wanted) \(name) …` in its checkout")
            }
            return InstallSource(
                executable: FileFacts.executable.path, configuration: built,
                plugins: PluginSet.discover(in: [current.pluginDirectory.path]), buildRoot: nil)
        }
        let configuration = wanted ?? "release"
        let folder =
            configuration == current.configuration
            ? current.executableDirectory
            : current.executableDirectory.deletingLastPathComponent().appendingPathComponent(configuration)
        let executable = folder.appendingPathComponent(name).path
        try build(
            host: configuration == current.configuration ? nil : name, features: features, in: repository,
            folder: folder, configuration: configuration, environment: arguments.environment)
        guard FileFacts.kind(of: executable) == .file else {
            throw Problem(
                code: .installNoBuild, subject: folder.path,
                reason: "there is no \(configuration) build of \(name) (no \(executable))",
                fix:
                    "run `swift build -c \(configuration) --product \(name)` in \(repository.path) first, or install another build with --configuration"
            )
        }
        let locations = PluginLocations(executableDirectory: folder, repository: repository)
        let plugins = locations.libraries(in: [folder.path], environment: arguments.environment).paths
        return InstallSource(
            executable: executable, configuration: configuration, plugins: plugins,
            buildRoot: repository.appendingPathComponent(".build").path)
    }

    /// Builds what an install from `repository` takes, and nothing else: the host `host` when it is not the running
    /// executable (another configuration), then the features Package.swift lists (`features`: only those, by folder
    /// name in any case) that are missing or older than their sources, each `swift build --product NAME` alone. A
    /// package without a feature list (a team's own host) has its libraries taken as they were built.
    private static func build(
        host: String?, features: [String]?, in repository: URL, folder: URL, configuration: String,
        environment: HostEnvironment
    ) throws(Problem) {
        if let host {
            Console.err(
                "\(host): building the host in \(configuration): swift build -c \(configuration) --product \(host)")
            try ProductBuild.run(
                host, in: repository.path, buildDirectory: folder.path, configuration: configuration,
                environment: environment, fix: "fix the compiler errors above, then install again")
        }
        let stale = StalePlugins(
            locations: PluginLocations(executableDirectory: folder, repository: repository), environment: environment)
        let listed = FeatureList.features(in: repository, environment: environment)
        let notices: [Notice]
        if let features {
            notices = features.compactMap { name in
                listed.first { $0.lowercased() == name.lowercased() }.flatMap { stale.build(feature: $0) }
            }
        } else {
            notices = [stale.refresh()].compactMap { $0 }
        }
        guard let failed = notices.first(where: { $0.level == .error }) else { return }
        throw Problem(
            code: Problem.Code(rawValue: failed.code), subject: repository.path, reason: failed.message,
            fix: failed.fix ?? "fix the compiler errors above, then install again")
    }
}

/// Lays out an installed app (`install`) or a QA bundle (`bundle`), one way for both: the host into `bin/` with its
/// RUNPATH pointed at `lib/`, the SDK and the Swift runtime libraries the host and plugins need (found from their
/// `DT_NEEDED` entries, transitively, in their RUNPATH folders: the toolchain's; the system's stay the system's)
/// into `lib/`, the plugins into `plugins/` with a `plugins.lock` of them (each examined by a sandboxed probe, as
/// `microapp lock` does), any extra files, and `install.json` last; then swaps it in for the prefix in one step.
enum AppInstallation {
    /// A file an install adds beside its layout (a bundle's launcher and `bundle.json`), made once the plugins'
    /// manifests are known.
    struct Extra {
        /// Its path under the prefix.
        var path: String
        /// Its bytes.
        var data: Data
        /// Its mode.
        var permissions: Int = 0o644
    }

    /// What an install wrote.
    struct Installed {
        /// Its record.
        var record: InstallRecord
        /// Each plugin's manifest, by the plugin's file name.
        var manifests: [String: ManifestSummary]
    }

    /// Why an install may not go to `prefix` (absolute): inside the checkout's `.build` (SwiftPM's to write), or
    /// taken by something that is not an earlier install; nil when it may.
    static func refusal(of prefix: String, source: InstallSource) -> Problem? {
        if let build = source.buildRoot {
            let real = FileFacts.canonicalPath(build)
            let target = canonicalPrefix(prefix)
            if target == real || target.hasPrefix(real + "/") {
                return Problem(
                    code: .installPrefix, subject: prefix,
                    reason: "it is inside the checkout's build folder \(build), which SwiftPM rewrites and cleans",
                    fix: "choose a prefix outside .build, e.g. --prefix ~/.local/microapp")
            }
        }
        if case .failure(let problem) = InstallTarget.check(prefix) { return problem }
        return nil
    }

    /// Installs `plugins` of `source` at `prefix` (checked with `refusal`), with `extras`, telling each copy on stderr;
    /// nil when a plugin does not load (the problems printed, nothing placed).
    @MainActor
    static func install(
        _ source: InstallSource, plugins: [String], at prefix: String, arguments: Arguments, doing: String,
        extras: ([String: ManifestSummary]) -> [Extra] = { _ in [] }
    ) async throws(Problem) -> Installed? {
        if let problem = refusal(of: prefix, source: source) { throw problem }
        let name = (source.executable as NSString).lastPathComponent
        let names = Set(plugins.map { ($0 as NSString).lastPathComponent })
        let needed: (found: [(name: String, path: String)], system: [String])
        switch NeededLibraries.resolve([source.executable] + plugins, provided: names) {
        case .success(let resolved): needed = resolved
        case .failure(let problem): throw problem
        }
        let staging = try makeStaging(for: prefix)
        Console.err("microapp: \(doing) \(name) (\(source.configuration)) in \(prefix)")
        do throws(Problem) {
            let copies =
                [(source.executable, "\(InstalledLayout.binFolder)/\(name)")]
                + needed.found.map { ($0.path, "\(InstalledLayout.libFolder)/\($0.name)") }
                + plugins.map { ($0, "\(InstalledLayout.pluginsFolder)/\(($0 as NSString).lastPathComponent)") }
            var files: [InstallRecord.File] = []
            for (from, to) in copies {
                let file = try await BlockingWork.run { () throws(Problem) in try staging.copy(from, to: to) }
                Console.err("  \(file.path)  \(megabytes(file.size))")
                files.append(file)
            }
            let pluginFolder = staging.layout.plugins
            let copied = plugins.map { pluginFolder + "/" + ($0 as NSString).lastPathComponent }
            guard
                let examined = await LockCommand.examined(copied, in: pluginFolder, arguments: arguments, doing: doing)
            else {
                staging.remove()
                return nil
            }
            let lock = PluginLock(
                libraries: examined.compactMap { library in
                    library.report.manifest.map { (path: library.path, feature: $0.id, sha256: library.sha256) }
                })
            do {
                try lock.write(in: pluginFolder)
            } catch {
                throw Problem(
                    code: .installNotWritten, subject: pluginFolder,
                    reason: "its lock could not be written: \(error)",
                    fix: "check that the prefix's disk has room")
            }
            var manifests: [String: ManifestSummary] = [:]
            for library in examined {
                manifests[(library.path as NSString).lastPathComponent] = library.report.manifest
            }
            for extra in extras(manifests) {
                files.append(try staging.write(extra.data, to: extra.path, permissions: extra.permissions))
            }
            let record = InstallRecord(
                host: name, hostVersion: HelpText.version, configuration: source.configuration,
                installed: ISO8601DateFormatter().string(from: arguments.environment.date()), files: files,
                system: needed.system.sorted())
            _ = try staging.write(record.encoded(), to: InstalledLayout.recordName)
            try staging.place()
            return Installed(record: record, manifests: manifests)
        } catch {
            staging.remove()
            throw error.problem
        }
    }

    /// `12.3 MB`, `512 KB`.
    static func megabytes(_ bytes: Int) -> String {
        bytes >= 1 << 20
            ? String(format: "%.1f MB", Double(bytes) / Double(1 << 20)) : "\(max(1, (bytes + 1023) / 1024)) KB"
    }

    private static func makeStaging(for prefix: String) throws(Problem) -> InstallStaging {
        do {
            return try InstallStaging.make(for: prefix)
        } catch {
            throw error.problem
        }
    }

    /// `prefix` as the kernel names it, the part that exists resolved (the rest need not exist yet).
    private static func canonicalPrefix(_ prefix: String) -> String {
        var existing = URL(fileURLWithPath: prefix).standardizedFileURL.path
        var rest: [String] = []
        while !FileFacts.exists(existing), existing != "/" {
            rest.insert((existing as NSString).lastPathComponent, at: 0)
            existing = (existing as NSString).deletingLastPathComponent
        }
        return ([FileFacts.canonicalPath(existing)] + rest).joined(separator: "/")
    }
}
