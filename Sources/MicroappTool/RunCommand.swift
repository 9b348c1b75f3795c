import CPlatform
import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappHost
import MicroappPlatform
import MicroappSDK
import MicroappTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// `microapp run`: load, resolve and start the plugins, then hand the app to a front end.
enum RunCommand {
    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(UsageError) -> ExitCode {
        if arguments.flag("--supervised") { endWithSupervisor() }
        let ui = try FrontEnd.chosen(by: arguments)
        let settleTimeout = try FrontEnd.settleTimeout(from: arguments)
        let openURL = try arguments.openURL()
        // The supervised app's copies of its libraries live in its supervisor's private folder, which the supervisor
        // removes however this process ends.
        if let stateFile = arguments.value("--state-file") {
            LibraryCopy.keepCopies(in: (stateFile as NSString).deletingLastPathComponent)
        }
        let set = try await LoadedPluginSet.load(arguments, host: host, services: .live)
        if arguments.flag("--strict") && !set.problems.isEmpty {
            Console.report(set.problems)
            Console.err("microapp: \(set.problems.count) problem(s) with the plugin set; --strict stops here")
            return .invalidPluginSet
        }
        // Recorded before any feature's code runs: a crash while features start is traced to its library too.
        let stateFile = arguments.value("--state-file")
        let libraries = RecordedState.libraries(of: set.images)
        if let stateFile { RecordedState(route: "", feature: "", libraries: libraries).save(stateFile) }
        let placements = set.placements
        let runtime = AppRuntime(
            sources: placements.map(\.source), resolution: set.resolution, container: set.container,
            options: AppRuntime.Options(
                name: host.name, home: arguments.value("--home") ?? host.home, isolation: set.running))
        set.isolationLog?.connect { feature, line in
            runtime.announce([Notice(level: .info, code: Notice.logCode, message: line, feature: feature)])
        }
        let problems = set.problems + runtime.startProblems
        if arguments.flag("--strict") && !problems.isEmpty {
            Console.report(problems)
            return .invalidPluginSet
        }
        guard !runtime.runningFeatures.isEmpty else {
            Console.report(problems)
            Console.err(
                Problem(
                    code: "nothing-to-run", subject: "", reason: "no feature is left to run",
                    fix: "build the plugins (`swift build`) or point --plugins at a folder of lib<Feature>.so files"))
            return .invalidPluginSet
        }
        runtime.open(openURL)
        // Scripts read problems as `error` lines and people see them in the footer; stderr keeps a copy
        // except in JSON mode, where stdout already carries them.
        runtime.announce(
            (problems + set.warnings).map(\.problem.notice) + (set.buildFailure.map { [$0] } ?? []))
        if let leftOver = set.leftOver {
            runtime.announce([
                Notice(
                    level: .info, code: "skipped-libraries", message: leftOver.message, fix: leftOver.fix,
                    detail: leftOver.libraries.map(\.file))
            ])
            if ui != .json { Console.err(leftOver.note, label: "note") }
        }
        if let crash = arguments.value("--crash-notice") {
            runtime.announce([
                Notice(
                    level: .error, code: "plugin-crashed", message: crash,
                    fix: "run `microapp doctor`, fix the plugin and start again")
            ])
        }
        if ui != .json {
            Console.report(problems)
            Console.warn(set.warnings)
        }
        let recorder = stateFile.map { RecordingDriver(runtime, file: $0, libraries: libraries) }
        let watch =
            arguments.flag("--watch")
            ? PluginBuilder.watch(
                runtime, images: set.plugins,
                directories: try PluginLocations.current().directories(arguments),
                probing: !arguments.flag("--no-probe"), isolation: set.isolated.isEmpty ? nil : set.isolationLog,
                willSwap: recorder.map { recorder in recorder.willSwap }
            ) : nil
        let driver: any AppDriver = recorder ?? runtime
        await ui.run(driver, settleTimeout: settleTimeout)
        watch?.stop()
        RemoteFeature.stopAll()
        set.isolationLog?.zygote?.stop()
        return .ok
    }

    /// An app process whose supervisor is gone (killed, say) must not live on holding the terminal and the data:
    /// the kernel sends it SIGTERM when the supervisor ends (PR_SET_PDEATHSIG, through a C shim: prctl is variadic),
    /// which the terminal front end answers by putting the terminal back before ending.
    private static func endWithSupervisor() {
        // The supervisor's pid, read before the request so that one ending in between is noticed by the shim's
        // second look. (One that ended before this process got here is not: that window is its start-up.)
        let supervisor = getppid()
        switch microapp_end_with_parent(supervisor, SIGTERM) {
        case 0: return
        case 1: _exit(Int32(ExitCode.crashed.rawValue))
        default:
            Console.err(
                Problem(
                    code: "no-parent-death-signal", subject: "",
                    reason:
                        "cannot ask to end with the supervisor (prctl PR_SET_PDEATHSIG: \(String(cString: strerror(errno))))",
                    fix: "run with --no-supervise")
            )
            _exit(Int32(ExitCode.crashed.rawValue))
        }
    }
}
