import CommandLineSpec
import Foundation
import MicroappCore
import MicroappIsolation
import MicroappPlatform

/// The generic `microapp` tool (run, solo, preview, --watch, doctor, graph, keys, new, …) over one app's services:
/// an app's host is a `main.swift` that builds its `HostConfiguration` and calls `MicroappTool.main(host:)`.
public enum MicroappTool {
    /// Runs the command line (`words`, the process's own arguments by default) for `host` in `environment` (this
    /// process's by default: an app's own host composes nothing more); answers the exit code.
    @MainActor
    public static func main(
        host: HostConfiguration, environment: HostEnvironment = .process,
        words: [String] = Array(CommandLine.arguments.dropFirst())
    ) async -> Int32 {
        HostScratch.use(environment)
        // The template CPlatform forked before main, for a run with isolated features: it serves and reads nothing.
        if Zygote.isEarlyTemplate { return await zygote(host: host, environment: environment) }
        // A supervised `run` whose first app process CPlatform forked before main: this is that process, or the
        // supervisor once it crashed (an app that ended on purpose ended the supervisor before main).
        switch AppProcess.early {
        case .none: break
        case .appProcess(let folder):
            let code = await Supervisor.firstAppProcess(words, folder: folder, host: host, environment: environment)
            return Console.exitCode(for: code).rawValue
        case .supervisor(let first):
            useNames(of: host, environment: environment)
            let code = await RunCommand.supervise(words, host: host, environment: environment, first: first)
            return Console.exitCode(for: code).rawValue
        }
        if words == ["zygote"], environment[Commands.internalMarker] == "1" {
            return await zygote(host: host, environment: environment)
        }
        if words.first == "feature-host", environment[Commands.internalMarker] == "1" {
            return await IsolatedServerCommand.run(Array(words.dropFirst()), environment: environment)
        }
        return Console.exitCode(for: await dispatch(words, host: host, environment: environment)).rawValue
    }

    /// `microapp zygote` (internal, started by the host with `MICROAPP_INTERNAL=1`): the template process that forks
    /// isolated features. In each forked child this runs the command line the host asked for, as if the executable
    /// had been started with it.
    @MainActor
    private static func zygote(host: HostConfiguration, environment: HostEnvironment) async -> Int32 {
        // Once, what every feature's child would repeat before its library loads (≈ 2.5 ms of CPU a child, ≈ 5 ms
        // once here); a template for a run's probes only starts at its first request, which would wait for it.
        if !Zygote.servesProbesOnly { IsolatedServer.prepareTemplate() }
        // Read once here, not in each child: a forked child's variables, folders and clocks are the template's, and
        // without a HOME (a child's environment has none) the home folder is a read of the password database.
        let environment = HostEnvironment.process
        let served = Zygote.serve(namespaces: environment[ProcessNamespaces.variable] != "0")
        guard let arguments = served.arguments else {
            if let problem = served.problem { Console.err("microapp zygote: \(problem)") }
            return served.problem == nil ? 0 : 70
        }
        if arguments.first == "feature-host" {
            return await IsolatedServerCommand.run(Array(arguments.dropFirst()), environment: environment)
        }
        return Console.exitCode(for: await dispatch(arguments, host: host, environment: environment)).rawValue
    }

    /// Dispatches the command line to its command (a built-in one or `host`'s) and answers the contract's code.
    @MainActor
    static func dispatch(_ words: [String], host: HostConfiguration, environment: HostEnvironment) async -> ExitCode {
        useNames(of: host, environment: environment)
        do throws(Problem) {
            if words.first == "--version" {
                Console.out(HelpText.versionLine)
                return .ok
            }
            let commands = CommandSet(host: host)
            let arguments = try Arguments(words, commands: commands, environment: environment)
            if arguments.asksForHelp {
                Console.out(HelpText(commands: commands).text(for: arguments))
                return .ok
            }
            // `Arguments` refuses a command the set does not have.
            guard let command = commands.command(named: arguments.command)?.type else { return .usage }
            return try await command.run(arguments, host: host)
        } catch {
            Console.err(error)
            return .usage
        }
    }

    /// How messages name the program and the commands they suggest (`host`'s name, as typed here).
    @MainActor
    private static func useNames(of host: HostConfiguration, environment: HostEnvironment) {
        ProgramName.use(host.commandName)
        ProgramName.useTyped(NewCommand.invocation(name: host.commandName, path: environment["PATH"]).command)
    }
}

/// Tells CPlatform's constructor that this executable's `main` serves a template forked before it
/// (`Zygote.isEarlyTemplate`); executables without MicroappTool never fork one.
@_cdecl("microapp_early_zygote_served")
public func microappEarlyZygoteServed() {}

/// Tells CPlatform's constructor that this executable's `main` can be a supervisor whose first app process it forked
/// before main, and that process (`AppProcess.early`); executables without MicroappTool never fork one.
@_cdecl("microapp_early_supervisor_served")
public func microappEarlySupervisorServed() {}
