import CommandLineSpec
import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappHost
import MicroappPlatform
import MicroappSDK
import MicroappTerminal

/// `microapp run`: load, resolve and start the plugins, then hand the app to a front end.
enum RunCommand: Command {
    static let home = OptionSpec.value(
        "--home", "URL", .text,
        help: "the route opened first and after signing in (default: the app's home route)")
    static let noSupervise = OptionSpec.flag(
        "--no-supervise", help: "run the app in this process: a plugin that crashes takes the app down with it")
    static let supervised = OptionSpec.flag("--supervised", help: "this is the supervisor's app process", hidden: true)
    static let stateFile = OptionSpec.value(
        "--state-file", "FILE", .text, help: "where to record the route and loaded libraries", hidden: true)
    static let crashNotice = OptionSpec.value(
        "--crash-notice", "TEXT", .text, help: "the banner after a restart", hidden: true)
    static let channel = OptionSpec.value(
        "--channel", "URL", .text,
        help: """
            follow a channel (a folder or an http(s) URL): check it at start, every --check-every
            minutes, on SIGUSR1 and on {"type":"check-updates"}; install what is newer and swap it
            in, keeping state; a new version that crashes, hangs or is refused within --canary-window
            goes back to the one before and is marked bad
            """)
    static let checkEvery = OptionSpec.value(
        "--check-every", "MINUTES", .minutes, default: .seconds(600),
        help: "with --channel, minutes between checks (default 10)")
    static let canaryWindow = OptionSpec.value(
        "--canary-window", "SECONDS", .seconds, default: Canary<ContinuousClock.Instant>.defaultWindow,
        help: "with --channel, how long a new version is on trial after its swap (default 30)")
    static let ui = CommonOptions.ui.with(
        help: """
            terminal (default on a terminal), text, json (one JSON event per line on stdin,
            one JSON frame/notice/error per line on stdout), or web (a page on 127.0.0.1: open
            the printed URL in a browser; ctrl-c stops the app)
            """)
    static let strict = CommonOptions.strict.with(
        help: """
            any plugin problem is fatal (exit 2) instead of skipping that plugin; a feature declaring a
            capability --allow does not name, or a requirement not granted, is a problem
            """)

    static let declaration = CommandSpec(
        "microapp run", summary: "run the app with every plugin it finds (the default command)",
        options: [
            CommonOptions.plugins, CommonOptions.only, CommonOptions.open, ui, CommonOptions.port,
            CommonOptions.settleTimeout,
            CommonOptions.isolation, CommonOptions.allowUnsandboxed, CommonOptions.allow, CommonOptions.grant, strict,
            home, CommonOptions.noBuild, CommonOptions.noProbe, noSupervise, CommonOptions.watch, channel, checkEvery,
            canaryWindow, supervised, stateFile, CommonOptions.skipLibrary, crashNotice,
        ],
        discussion: """
            Plugins are the lib<Feature>.so files beside this executable plus each --plugins DIR. Run from the
            repository, microapp first builds the plugin libraries that are missing or older than their sources.
            A new or changed library is first loaded in a child process; one that crashes or hangs there is refused
            (and stays refused until it changes). Verdicts are cached in $XDG_CACHE_HOME/microapp. While the app runs,
            a plugin that crashes it is turned off and the app restarts within a second on the same route, with a banner
            naming the plugin; three crashes within ten seconds stop with a report (exit 3).

            TERMINAL KEYS
              tab/↑↓ move · enter select (in a form's last field: submit) · esc back · ctrl-c quit (q too, outside a field)
              1-9 pick a tab (alt+1-9 while a field has the keys) · : open a route by URL (ctrl-o in a field)
              ctrl-l log of what isolated features printed, in place of the screen (ctrl-l or esc closes it)
            Signed in, the features' tabs stand under the header; text mode lists them with their ids and JSON frames
            carry them as "tabs" ({"type":"tap","id":"tab.search"} opens one). A deep link lands with its feature's
            tab route under it, so esc goes back to the list.
            """,
        epilogue: """
            EXIT CODES
              0 ok · 1 usage or input error · 2 plugin set invalid (problems listed) · 3 a plugin crashed

            Examples:
              swift run microapp
              swift run microapp --open characters://list --ui json
              swift run microapp routes
              swift run microapp solo Characters --mock characters.page=failing
              swift run microapp preview Auth auth://sign-in --state alert
            """)

    /// People get a supervised app: a plugin that crashes it is turned off and the app comes back. The supervisor
    /// starts this command again as its app process (`--supervised`), which runs the app.
    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        if arguments[Self.supervised] || arguments[Self.noSupervise] { return try await runApp(arguments, host: host) }
        return await supervise(arguments.words, host: host, environment: arguments.environment)
    }

    /// The supervisor over `words` (`first`: its first app process, forked and ended before main), and in each app
    /// process it forks, the app.
    @MainActor
    static func supervise(
        _ words: [String], host: HostConfiguration, environment: HostEnvironment, first: AppProcess.FirstStart? = nil
    ) async -> ExitCode {
        switch Supervisor.run(words, environment: environment, first: first) {
        case .ended(let code): return code
        case .appProcess(let command):
            // A forked app process is a composition root of its own: the fork set its variables (MICROAPP_INTERNAL,
            // SWIFT_BACKTRACE), and its clock and folders are its own from here on.
            return await MicroappTool.dispatch(command, host: host, environment: .process)
        }
    }

    /// Runs the app in this process: its composition root (`AppComposition`) makes it, the front end shows it.
    @MainActor
    static func runApp(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        if arguments[Self.supervised] { endWithSupervisor() }
        guard let app = try await AppComposition.compose(arguments, host: host) else { return .invalidPluginSet }
        return await app.run()
    }

    /// An app process whose supervisor is gone (killed, say) must not live on holding the terminal and the data:
    /// the kernel sends it SIGTERM when the supervisor ends (PR_SET_PDEATHSIG, through a C shim: prctl is variadic),
    /// which the terminal front end answers by putting the terminal back before ending.
    static func endWithSupervisor() {
        switch ParentDeath.arm() {
        case .armed: return
        case .parentGone: ParentDeath.endNow(Int32(ExitCode.crashed.rawValue))
        case .failed(let reason):
            Console.err(
                Problem(
                    code: .noParentDeathSignal, subject: "",
                    reason: "cannot ask to end with the supervisor (prctl PR_SET_PDEATHSIG: \(reason))",
                    fix: "run with --no-supervise")
            )
            ParentDeath.endNow(Int32(ExitCode.crashed.rawValue))
        }
    }
}
