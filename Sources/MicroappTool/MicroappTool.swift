import Foundation
@_exported import MicroappCore
import MicroappPlatform
@_exported import MicroappSDK

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
        if words == ["zygote"], environment[Commands.internalMarker] == "1" {
            return await zygote(host: host, environment: environment)
        }
        if words.first == "feature-host", environment[Commands.internalMarker] == "1" {
            return await FeatureHostCommand.run(Array(words.dropFirst()), environment: environment)
        }
        return Console.exitCode(for: await dispatch(words, host: host, environment: environment)).rawValue
    }

    /// `microapp zygote` (internal, started by the host with `MICROAPP_INTERNAL=1`): the template process that forks
    /// isolated features. In each forked child this runs the command line the host asked for, as if the executable
    /// had been started with it.
    @MainActor
    private static func zygote(host: HostConfiguration, environment: HostEnvironment) async -> Int32 {
        let served = Zygote.serve()
        guard let arguments = served.arguments else {
            if let problem = served.problem { Console.err("microapp zygote: \(problem)") }
            return served.problem == nil ? 0 : 70
        }
        // A forked child is a composition root of its own: its clock and folders are its own from here on.
        let environment = HostEnvironment.process
        if arguments.first == "feature-host" {
            return await FeatureHostCommand.run(Array(arguments.dropFirst()), environment: environment)
        }
        return Console.exitCode(for: await dispatch(arguments, host: host, environment: environment)).rawValue
    }

    /// Dispatches the command line to its command and answers the contract's code.
    @MainActor
    static func dispatch(_ words: [String], host: HostConfiguration, environment: HostEnvironment) async -> ExitCode {
        do throws(UsageError) {
            if words.first == "--version" {
                Console.out(HelpText.version)
                return .ok
            }
            let arguments = try Arguments(words, environment: environment)
            if arguments.flag("--help") || arguments.command == "help" {
                Console.out(HelpText.text(for: arguments))
                return .ok
            }
            switch arguments.command {
            case "run":
                // People get a supervised app: a plugin that crashes it is turned off and the app comes back.
                if arguments.flag("--supervised") || arguments.flag("--no-supervise") {
                    return try await RunCommand.run(arguments, host: host)
                }
                switch Supervisor.run(words, environment: environment) {
                case .ended(let code): return code
                case .appProcess(let command):
                    // A forked app process is a composition root of its own: the fork set its variables
                    // (MICROAPP_INTERNAL, SWIFT_BACKTRACE), and its clock and folders are its own from here on.
                    return await dispatch(command, host: host, environment: .process)
                }
            case "routes": return try await InspectCommands.routes(arguments, host: host)
            case "doctor": return try await InspectCommands.doctor(arguments, host: host)
            case "probe": return try await InspectCommands.probe(arguments)
            case "lock": return try await LockCommand.run(arguments)
            case "graph": return try await GraphCommand.run(arguments, host: host)
            case "keys": return try await KeysCommand.run(arguments, host: host)
            case "solo": return try await SoloCommand.run(arguments, host: host)
            case "preview": return try await PreviewCommand.run(arguments)
            case "new": return try NewCommand.run(arguments)
            case "remove": return try RemoveCommand.run(arguments)
            case "sdk": return try SDKCommand.run(arguments)
            default:
                // `Arguments` refuses commands that `Commands` does not declare; one declared there lands here.
                throw UsageError(
                    "command '\(arguments.command)' is declared but not implemented",
                    fix: "add its case to MicroappTool.dispatch (Sources/MicroappTool/MicroappTool.swift)")
            }
        } catch {
            Console.err(error.description)
            return .usage
        }
    }

}
