import CommandLineSpec
import MicroappCore
import MicroappDevLoop
import MicroappHost
import MicroappPlatform
import MicroappSDK
import MicroappTerminal

/// `microapp solo FEATURE`: one feature alone, its requirements met by the mocks it ships, routes into other
/// features shown as stubs. The fast loop of a feature team: only that feature's library is built and loaded, in
/// this process or, where `--isolation` places it in a process, in a sandboxed child that meets its requirements
/// from its mocks there.
enum SoloCommand: Command {
    static let mock = OptionSpec.repeatable(
        "--mock", "KEY=VARIANT", .pair("KEY=VARIANT", fix: "write e.g. `--mock characters.page=failing`"),
        help: """
            use that variant of a mocked service, e.g. --mock characters.page=failing
            (`solo` only — `run` uses the app's real services)
            """)

    /// A solo the gallery started for a card (`preview --ui web`): it ends when the gallery does, however it ends.
    static let endWithParent = OptionSpec.flag(
        "--end-with-parent", help: "end when the process that started this one ends", hidden: true)

    static let declaration = CommandSpec(
        "microapp solo", summary: "run one feature alone on its own mocks (other features' routes are stubs)",
        operands: [.required("FEATURE")],
        options: [
            mock, CommonOptions.open, CommonOptions.ui, CommonOptions.port,
            CommonOptions.settleTimeout.with(help: "how long each event waits for the app to settle, as for `run`"),
            CommonOptions.plugins.with(
                help: """
                    look for lib<FEATURE>.so in DIR; one found there wins over the
                    library beside this executable
                    """),
            CommonOptions.noBuild.with(help: "do not build the feature's library first"),
            CommonOptions.noProbe, CommonOptions.isolation, CommonOptions.allowUnsandboxed, CommonOptions.allow,
            CommonOptions.grant, CommonOptions.strict, endWithParent,
            CommonOptions.watch.with(
                help: """
                    rebuild and hot-swap the feature when its sources or library change (the
                    sources of the repository whose .build the library lies in, or those of
                    a package of its own, `microapp new NAME --package DIR`, that SwiftPM built)
                    """),
        ],
        discussion: """
            Runs one feature alone: only lib<FEATURE>.so is loaded (run from the repository, only that library is
            built first), and every requirement is met by the mocks the feature ships (`static func mocks()`).
            FEATURE is a folder in Plugins/, a feature id or a display name, in any case.
            The header says `solo · mocks`. A route into a feature that is not loaded shows a stub screen
            (`→ would open characters://detail/2 (Characters is not loaded)`) with Back; a guarded route opened
            signed out, with no sign-in feature loaded, shows the stub of the sign-in route. Only the loaded
            feature's tab is shown (while its mock session is signed in).
            """,
        epilogue: """
            Exit 1: unknown feature, or a --mock key or variant the mocks do not have (the list is printed).
            Exit 2: a requirement without a mock (named, with how to add it), or the library does not load.
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        if arguments[endWithParent] { RunCommand.endWithSupervisor() }
        let ui = arguments.frontEnd
        let settleTimeout = arguments[CommonOptions.settleTimeout]
        let open = arguments.openURL
        guard arguments.operands.count == 1, let name = arguments.operands.first else {
            throw Problem.usage(
                "solo takes exactly one FEATURE", fix: "write `microapp solo Characters` (folder, id or display name)")
        }
        let choices = mockChoices(arguments[mock])
        guard let library = try await FeatureLibrary.loadReporting(name, arguments: arguments, mocks: choices) else {
            return .invalidPluginSet
        }
        let manifest = library.plugin.manifest
        let rules = RunPolicy.rules(arguments, host: host)
        let setting: MockSetting
        if let feature = library.feature {
            guard let mocked = try inProcess(feature, library: library, choices: choices) else {
                return .invalidPluginSet
            }
            setting = mocked
        } else {
            setting = isolated(manifest, choices: choices)
        }
        try RunPolicy.checkGrantedKeys(arguments, offered: Set(setting.offers.keys))
        let sandbox = SandboxCheck.here(arguments)
        let resolution = DependencyResolver.resolve(
            [
                Candidate(
                    manifest: manifest, path: library.plugin.path, trust: library.trust,
                    sandboxed: sandbox.confines(library.plugin))
            ],
            hostOffers: setting.offers, rules: rules)
        let container = setting.container
        let placement = library.placement
        // In a child, the mocks' session reaches the host only after the start; signing in opens home, the route
        // asked for, once it does.
        let home = library.feature == nil ? open ?? host.home : host.home
        var options = AppRuntime.Options(
            name: host.name, home: home, mode: .solo, mocks: setting.inUse,
            foreign: ForeignRoutes(names: library.others, signIn: host.signInFallback),
            isolation: [manifest.id: placement.running], now: arguments.environment.now)
        options.spoken = { ProgramName.spoken($0) }
        let runtime = AppRuntime(
            sources: [placement.source], resolution: resolution, container: container, options: options)
        let problems = resolution.problems + runtime.startProblems
        guard problems.isEmpty, !runtime.runningFeatures.isEmpty else {
            Console.report(problems)
            Console.err("microapp: \(manifest.displayName) did not start on its mocks")
            return .invalidPluginSet
        }
        // A child's mocks write the session while it starts: the first route's guard reads it after that, and a
        // session that arrived opened home already.
        if library.feature == nil { await library.isolationLog?.running.starts() }
        if library.feature != nil || runtime.frame.route.isEmpty { runtime.open(open) }
        // A failed start-up build shows as one under --watch does: the box, and an `error` line in JSON.
        let namespaces = library.feature == nil ? ProcessNamespaces.notice(arguments.environment.variables) : nil
        runtime.announce(
            (library.buildFailure.map { [$0] } ?? [])
                + (resolution.warnings + (namespaces.map { [$0] } ?? [])).map(\.notice))
        library.isolationLog?.connect { feature, line in
            runtime.announce([Notice(level: .info, code: Notice.logCode, message: line, feature: feature)])
        }
        let watch =
            arguments[CommonOptions.watch]
            ? WatchLoop.started(
                runtime, images: [library.plugin],
                directories: try PluginLocations.current().directories(arguments),
                probing: !arguments[CommonOptions.noProbe], environment: arguments.environment,
                allowingUnsandboxed: arguments[CommonOptions.allowUnsandboxed], isolation: library.isolationLog,
                mocks: library.feature == nil ? choices : nil) : nil
        let exit = await ui.present(
            runtime, appName: host.name, arguments: arguments, settleTimeout: settleTimeout, restartFolder: nil)
        watch?.stop()
        library.isolationLog?.stopAll()
        return exit
    }

    /// What meets the feature's requirements in a solo run: the container the runtime reads, the offers the
    /// resolver checks, and the mocks in use (for the header).
    struct MockSetting {
        let container: Container
        let offers: [String: Offer]
        let inUse: [String]
    }

    /// The feature's mocks in this process, in the variants `choices` names; nil (reported) when a requirement has
    /// no mock.
    @MainActor
    private static func inProcess(
        _ feature: any Feature.Type, library: FeatureLibrary, choices: [String: String]
    ) throws(Problem) -> MockSetting? {
        let manifest = library.plugin.manifest
        let mocks = feature.mocks()
        let container: Container
        do {
            container = try Container.mocked(mocks, choices: choices)
        } catch {
            throw Problem.usage("\(manifest.displayName): --mock \(error.reason)", fix: error.fix)
        }
        let missing = mocks.missing(in: manifest)
        guard missing.isEmpty else {
            Console.report(missing.map { .unmocked($0, feature: manifest.id, typeName: library.typeName) })
            Console.err("microapp: \(manifest.displayName) cannot run alone until every requirement has a mock")
            return nil
        }
        return MockSetting(container: container, offers: container.offers, inUse: mocks.inUse(choices))
    }

    /// A feature running in a child meets every requirement from its mocks there (the child refused it before the
    /// handshake ended if it could not): the host offers each requirement as the mocks' and keeps only a copy of the
    /// session, which the child's mocks write, for the guards and the header.
    @MainActor
    private static func isolated(_ manifest: FeatureManifest, choices: [String: String]) -> MockSetting {
        let container = Container()
        let session = DependencyKey<Session?>.session(access: .readWrite)
        if manifest.requirements.contains(where: { $0.key == session.id && $0.kind == .state }) {
            container.share(session, ObservableProperty<Session?>(nil))
        }
        var offers = container.offers
        // The session copy stands for the mocks' session: like every other key here it is the feature's own mocks,
        // which grant rules do not govern.
        for key in offers.keys { offers[key]?.provider = Container.mocks }
        for requirement in manifest.requirements where offers[requirement.key] == nil {
            offers[requirement.key] = Offer(
                key: requirement.key, type: requirement.type, kind: requirement.kind, access: requirement.access,
                provider: Container.mocks, shape: requirement.shape)
        }
        let inUse = manifest.requirements.map {
            $0.kind == .service ? "\($0.key)=\(choices[$0.key] ?? "default")" : $0.key
        }
        return MockSetting(container: container, offers: offers, inUse: inUse.sorted())
    }

    /// `--mock KEY=VARIANT` options by key; the last one for a key wins.
    static func mockChoices(_ pairs: [KeyValuePair]) -> [String: String] {
        var choices: [String: String] = [:]
        for pair in pairs { choices[pair.key] = pair.value }
        return choices
    }
}
