import CommandLineSpec
import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import MicroappShipping

/// `microapp install --prefix DIR [--configuration release|debug]`: an app that runs without the checkout and without
/// the toolchain (see `AppInstallation`).
enum InstallCommand: Command {
    static let prefix = OptionSpec.value(
        "--prefix", "DIR", .text, help: "the folder to install into: new, empty, or an earlier install (replaced)")

    static let declaration = CommandSpec(
        "microapp install",
        summary: "install the app (host, SDK, Swift runtime, plugins) into DIR, outside the checkout",
        options: [prefix, InstallSource.configuration, CommonOptions.probeUnsandboxed],
        discussion: """
            Lays out DIR/bin/<host> (this host's executable, its RUNPATH rewritten to $ORIGIN/../lib), DIR/lib (the
            SDK and the Swift runtime libraries the host and its plugins need, found from their ELF NEEDED entries in
            the toolchain's folder; Debian's own libraries, such as libsqlite3 and libcrypto, stay the system's),
            DIR/plugins (the plugin libraries the host loads, with a plugins.lock of them: each library is examined
            by a sandboxed probe, as `microapp lock` does) and DIR/install.json, the record of what is there. Run
            from a checkout, it builds what it installs in --configuration (release by default), and nothing else:
            the host unless it is the one running (`swift run -c release microapp install …` built it), and each
            feature Package.swift lists that is missing or older than its sources, one product per `swift build`
            (never a plain `swift build`, which also links the benchmarks, the fuzzers and the monolith); run from
            an installed app, it copies that install. The installed app keeps its data in your XDG folders, as
            `swift run microapp` does (under `env -i`, in your password entry's home). Reinstalling over an
            earlier install replaces it in one step (an app running from it keeps running); DIR inside the
            checkout's .build, or a DIR that holds anything but an earlier install, is refused.
            Exit 1 for a refused DIR or a failed build, 2 when a plugin library does not load.
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        guard let given = arguments[prefix], !given.isEmpty else {
            throw Problem.usage(
                "install needs --prefix DIR", fix: "write e.g. `microapp install --prefix ~/.local/microapp`")
        }
        let prefix = URL(fileURLWithPath: arguments.environment.absolutePath(given)).standardizedFileURL.path
        let source = try InstallSource.find(arguments)
        guard
            let installed = try await AppInstallation.install(
                source, plugins: source.plugins, at: prefix, arguments: arguments, doing: "installing")
        else { return .invalidPluginSet }
        let record = installed.record
        // So that a lock deleted later is noticed, as for `microapp lock`.
        try? LockHistory(environment: arguments.environment).record(InstalledLayout(prefix: prefix).plugins)
        let features = installed.manifests.values.map { "\($0.displayName) v\($0.version)" }.sorted()
        Console.out(
            "installed \(record.host) (\(record.configuration)) in \(prefix): \(record.files.count) files, \(AppInstallation.megabytes(record.size))"
        )
        Console.out("  features: \(features.isEmpty ? "none" : features.joined(separator: ", "))")
        Console.out("  from the system: \(record.system.joined(separator: ", "))")
        Console.out("start it: \(prefix)/\(InstalledLayout.binFolder)/\(record.host)")
        return .ok
    }
}
