import Foundation
import MicroappCore
import MicroappIsolation
import MicroappLoading
import MicroappPlatform

/// `microapp run` as people start it: a small parent that runs the app in a child process and, when a plugin
/// crashes it, starts it again within a second without that plugin, on the route it was showing, with a banner
/// naming the plugin. Several crashes in a short time stop with a report (exit 3) instead of a loop. The decisions
/// are `CrashLoop`'s (MicroappCore); the processes, files and signals are the platform's; this says what happened.
enum Supervisor {
    /// How `run` ends: in the supervisor with its exit code; in an app process it forked (not started), with the
    /// command line that process is to run, as if it had been started with it.
    enum Outcome {
        case ended(ExitCode)
        case appProcess([String])
    }

    /// Supervises `words`; `first` is the first app process when CPlatform's constructor forked it before main and
    /// waited for it (its folder, its crash file, how it ended, the terminal before it): this goes on from its ending.
    static func run(_ words: [String], environment: HostEnvironment, first: AppProcess.FirstStart? = nil) -> Outcome {
        let executable = FileFacts.executable.path
        guard let folder = first?.folder ?? makeFolder(in: environment.temporaryFolder) else { return .ended(.usage) }
        // Removed by the supervisor alone: a forked app process leaves this function with the folder in use.
        var isSupervisor = true
        defer { if isSupervisor { folder.remove() } }
        let terminal = first.map(\.terminal) ?? SavedTerminal.save()
        AppProcess.ignoreInterrupts()
        // `kill <supervisor>` or a closed terminal ends the app through this process, which then removes its folder.
        try? TerminationForwarding.install()
        var loop = CrashLoop<ContinuousClock.Instant>()
        var starts = 0
        var firstEnding = first.map { (crashFile: $0.crashFile, ending: $0.ending) }
        while true {
            let crashFile = firstEnding?.crashFile ?? folder.crashFile(starts)
            starts += 1
            let ending: AppEnding
            if let known = firstEnding {
                ending = known.ending
                firstEnding = nil
            } else {
                let arguments = loop.arguments(for: words, stateFile: folder.stateFile)
                switch AppProcess.start(
                    executable, arguments, crashFile: crashFile, environment: environment.variables)
                {
                case .appProcess(let command):
                    isSupervisor = false
                    return .appProcess(command)
                case .notStarted(let problem):
                    Console.err("microapp: \(problem.reason)")
                    return .ended(.crashed)
                case .ended(let ended): ending = ended
                }
            }
            if let verdict = loop.verdict(for: ending), case .end(let exit, let restoresTerminal) = verdict {
                if restoresTerminal { terminal?.restore() }
                return .ended(ExitCode(exit))
            }
            terminal?.restore()
            let (headline, traced, state) = trace(ending, crashFile: crashFile, in: folder)
            let verdict = loop.record(
                traced, headline: headline, at: environment.now(), shownFeature: state?.feature, route: state?.route)
            if case .restart = verdict { continue }
            tell(verdict, headline: headline, window: loop.window, kept: folder.keep(crashFile))
            return .ended(.crashed)
        }
    }

    /// The supervisor's own folder, made fresh in `base`; nil (said why) when it cannot be made.
    private static func makeFolder(in base: String) -> SupervisorFolder? {
        do {
            return try SupervisorFolder.make(in: base)
        } catch {
            Console.err(
                Problem(
                    code: .noTemporaryFolder, subject: "",
                    reason: "cannot make a temporary folder in \(base) for the supervisor (\(error.words))",
                    fix: "set TMPDIR to a writable folder, or run with --no-supervise")
            )
            return nil
        }
    }

    /// The first app process, forked before main (`AppProcess.EarlyStart.appProcess`): runs the app as the supervisor
    /// would have started it for `words` (its state in `folder`), once they parse as a supervised `run` the way the
    /// supervisor parses them (the person's environment, without the internal marker). Any other command line (a
    /// usage error, help: the constructor decides from words alone) runs as given, so it reads as it would have, and
    /// the supervisor relays its exit code.
    @MainActor
    static func firstAppProcess(
        _ words: [String], folder: SupervisorFolder, host: HostConfiguration, environment: HostEnvironment
    ) async -> ExitCode {
        AppProcess.takeOver()
        let arguments = try? Arguments(words, commands: CommandSet(host: host), environment: environment)
        guard let arguments, arguments.command == RunCommand.name, !arguments.asksForHelp,
            !arguments[RunCommand.supervised], !arguments[RunCommand.noSupervise]
        else { return await MicroappTool.dispatch(words, host: host, environment: environment) }
        AppProcess.becomeApp()
        let command = CrashLoop<ContinuousClock.Instant>().arguments(for: words, stateFile: folder.stateFile)
        // A composition root of its own, as a forked app process is: the variables just set are in its environment.
        return await MicroappTool.dispatch(command, host: host, environment: .process)
    }

    /// The crash's headline (the report's first line, or the signal when no report was written), the plugin it is
    /// traced to, and the state the app recorded. The plugin at fault is the innermost frame in a library the app
    /// loaded, matched by full path: a library of the same file name elsewhere (`libAuth.so` in a --plugins folder)
    /// is another plugin, and a hot-swapped copy is turned off as the library its feature started from.
    private static func trace(
        _ ending: AppEnding, crashFile: String, in folder: SupervisorFolder
    ) -> (headline: String, crash: PluginCrash?, state: RecordedState?) {
        let report = folder.report(at: crashFile)
        var crash = CrashReport(report ?? "")
        if report == nil, case .crashed(let signal, let name) = ending {
            crash.headline = "ended by signal \(signal), \(name)"
        }
        let state = RecordedState.load(folder.stateFile)
        let loaded = state?.libraries ?? [:]
        let traced = crash.library(among: loaded.keys).flatMap { image in
            loaded[image].map {
                PluginCrash(feature: $0.feature, library: $0.library, image: image, swapped: $0.swapped == true)
            }
        }
        return (crash.headline, traced, state)
    }

    /// Says why the supervisor stops after a crash: it was outside any plugin, or crashes came too fast (`kept`:
    /// where the crash report was kept, if one was written).
    private static func tell(
        _ verdict: CrashLoop<ContinuousClock.Instant>.Verdict, headline: String, window: Duration, kept: String?
    ) {
        if case .giveUp(let reports) = verdict {
            Console.err("microapp: \(reports.count) plugin crashes within \(window); stopping instead of looping:")
            for report in reports { Console.err("  \(report)") }
            Console.err("  to fix: run `microapp doctor` and fix or remove those plugins")
            if let kept { Console.err("  crash report: \(kept)") }
            return
        }
        Console.err(
            Problem(
                code: .appCrashed, subject: "",
                reason: "the app crashed (\(headline)) outside any plugin, so it cannot be isolated",
                fix: "report it with " + (kept ?? "the command line and what you did (no crash report was written)")))
    }
}

extension ExitCode {
    /// The exit code of a supervisor's `exit`: the app's own status when it is one of ours, else `crashed`.
    init(_ exit: SupervisorExit) {
        switch exit {
        case .status(let code): self = ExitCode(rawValue: code) ?? .crashed
        case .hungUp: self = .hungUp
        case .terminated: self = .terminated
        case .interrupted: self = .interrupted
        case .outputClosed: self = .outputClosed
        case .crashed: self = .crashed
        }
    }
}
