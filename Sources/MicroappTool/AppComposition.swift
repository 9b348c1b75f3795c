import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappHost
import MicroappLoading
import MicroappPlatform
import MicroappSDK

/// The run's composition root: what `run` (and its supervised app process) runs, made from the command line and the
/// host's configuration in three steps — the plugin set (versions a crash took away from taken back first), the
/// runtime with what it says at start, and what keeps it current (`--watch`, `--channel`) — then handed to the front
/// end, and everything it started stopped when the front end returns. `RunCommand` only decides where it runs.
@MainActor
struct AppComposition {
    let arguments: Arguments
    let host: HostConfiguration
    let set: LoadedPluginSet
    let runtime: AppRuntime
    /// Where the supervisor reads the route and the libraries (`--state-file`), or nil unsupervised.
    let stateFile: String?
    /// The runtime as the front end drives it: through the recorder when there is a state file.
    let driver: any AppDriver
    let updates: Updates

    /// What swaps new versions in while the app runs: nothing, or the swapper and what feeds it.
    struct Updates {
        var swapper: HotSwapper?
        var watch: WatchLoop?
        var channel: ChannelWatch?
    }

    /// Composes the app `arguments` ask for, its features started and its first route open; nil when it is refused
    /// (`--strict` with a problem, or no feature left to run), the reason printed: the run exits `invalidPluginSet`.
    static func compose(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> AppComposition? {
        // The supervised app's copies of its libraries live in its supervisor's private folder, which the supervisor
        // removes however this process ends.
        let stateFile = arguments[RunCommand.stateFile]
        if let stateFile { LibraryCopy.keepCopies(in: (stateFile as NSString).deletingLastPathComponent) }
        // Versions a crash took the app away from inside their canary window go back before anything loads.
        let recovery = CanaryRecovery.takeBack(
            in: try PluginLocations.current().directories(arguments),
            crashed: Set(arguments[CommonOptions.skipLibrary])
        ) { folder, trial in
            ChannelUpdater.reject(
                trial.feature, bad: trial.version, restored: trial.previous, in: folder,
                environment: arguments.environment)
        }
        let set = try await LoadedPluginSet.load(arguments, host: host, services: .live, restored: recovery.restored)
        if arguments[RunCommand.strict] && !set.problems.isEmpty {
            Console.report(set.problems)
            Console.err("microapp: \(set.problems.count) problem(s) with the plugin set; --strict stops here")
            return nil
        }
        // Recorded before any feature's code runs: a crash while features start is traced to its library too.
        let libraries = RecordedState.libraries(of: set.images)
        if let stateFile { RecordedState(route: "", feature: "", libraries: libraries).save(stateFile) }
        guard let runtime = startRuntime(set, arguments: arguments, host: host, notices: recovery.notices) else {
            return nil
        }
        let recorder = stateFile.map { RecordingDriver(runtime, file: $0, libraries: libraries) }
        let updates = try startUpdates(runtime, set: set, arguments: arguments, recorder: recorder)
        return AppComposition(
            arguments: arguments, host: host, set: set, runtime: runtime, stateFile: stateFile,
            driver: recorder ?? runtime, updates: updates)
    }

    /// The runtime over `set`'s resolved features, its first route open and its start's problems, warnings and
    /// `notices` announced; nil (the problems printed) when `--strict` finds one or no feature is left to run.
    private static func startRuntime(
        _ set: LoadedPluginSet, arguments: Arguments, host: HostConfiguration, notices: [Notice]
    ) -> AppRuntime? {
        var options = AppRuntime.Options(
            name: host.name, home: arguments[RunCommand.home] ?? host.home, isolation: set.running,
            now: arguments.environment.now)
        options.spoken = { ProgramName.spoken($0) }
        // Features start with their route, or after the first frame: the first frame waits for the one on screen.
        options.startsLater = set.startsLater
        let runtime = AppRuntime(
            sources: set.placements.map(\.source), resolution: set.resolution, container: set.container,
            options: options)
        set.isolationLog?.connect { feature, line in
            runtime.announce([Notice(level: .info, code: Notice.logCode, message: line, feature: feature)])
        }
        let problems = set.problems + runtime.startProblems
        if arguments[RunCommand.strict] && !problems.isEmpty {
            Console.report(problems)
            return nil
        }
        guard !runtime.runningFeatures.isEmpty else {
            Console.report(problems)
            Console.err(
                Problem(
                    code: .nothingToRun, subject: "", reason: "no feature is left to run",
                    fix: "build the plugins (`swift build`) or point --plugins at a folder of lib<Feature>.so files"))
            return nil
        }
        runtime.open(arguments.openURL)
        // Scripts read problems as `error` lines and people see them in the footer; stderr keeps a copy
        // except in JSON mode, where stdout already carries them.
        runtime.announce((problems + set.warnings).map(\.notice) + (set.buildFailure.map { [$0] } ?? []) + notices)
        let json = arguments.frontEnd == .json
        if let leftover = set.leftover {
            runtime.announce([
                Notice(
                    level: .info, code: .skippedLibraries, message: leftover.message, fix: leftover.fix,
                    detail: leftover.libraries.map(\.file))
            ])
            if !json { Console.err(leftover.note, label: "note") }
        }
        if let crash = arguments[RunCommand.crashNotice] {
            runtime.announce([
                Notice(
                    level: .error, code: .pluginCrashed, message: crash,
                    fix: "run `microapp doctor`, fix the plugin and start again")
            ])
        }
        if !json {
            Console.report(problems)
            Console.warn(set.warnings)
        }
        return runtime
    }

    /// The swapper `--watch` or `--channel` asks for, started: the watch loop over the plugin folders, the channel's
    /// checks with their canary.
    private static func startUpdates(
        _ runtime: AppRuntime, set: LoadedPluginSet, arguments: Arguments, recorder: RecordingDriver?
    ) throws(Problem) -> Updates {
        guard arguments[CommonOptions.watch] || arguments[RunCommand.channel] != nil else { return Updates() }
        let environment = arguments.environment
        let swapper = HotSwapper.forRun(
            runtime, images: set.plugins, probing: !arguments[CommonOptions.noProbe], environment: environment,
            allowingUnsandboxed: arguments[CommonOptions.allowUnsandboxed],
            isolation: set.isolated.isEmpty ? nil : set.isolationLog,
            willSwap: recorder.map { recorder in recorder.willSwap })
        var updates = Updates(swapper: swapper)
        if arguments[CommonOptions.watch] {
            updates.watch = WatchLoop.started(
                swapper, images: set.plugins, directories: try PluginLocations.current().directories(arguments),
                environment: environment)
        }
        updates.channel = arguments[RunCommand.channel].map { url in
            ChannelWatch(
                swapper: swapper,
                updates: ChannelUpdater(
                    url, plugins: set.plugins, environment: environment,
                    screening: PluginScreening(
                        environment: environment, allowingUnsandboxed: SandboxCheck.here(arguments).unsandboxed)),
                window: arguments[RunCommand.canaryWindow], every: arguments[RunCommand.checkEvery],
                hangDeadline: RequestWatchdog.deadline(from: environment.variables),
                crashReport: MainThreadWatchdog.reportPath(environment.variables))
        }
        updates.channel?.start()
        return updates
    }

    /// Hands the app to the front end `--ui` names and, when it returns, stops what the composition started (the
    /// watch loop, the channel, the swapper, isolated features and their zygote); its exit code.
    func run() async -> ExitCode {
        let ui = arguments.frontEnd
        let exit = await ui.present(
            driver, appName: host.name, arguments: arguments, settleTimeout: arguments[CommonOptions.settleTimeout],
            restartFolder: stateFile.map { ($0 as NSString).deletingLastPathComponent },
            graph: ui == .web ? GraphCommand.dot(GraphCommand.graph(set)) : nil)
        updates.watch?.stop()
        updates.channel?.stop()
        updates.swapper?.quit()
        runtime.dropPendingStarts()
        set.isolationLog?.stopAll()
        set.isolationLog?.zygote?.stop()
        return exit
    }
}
