import Foundation

/// Dispatches the command line to its command and exits with the contract's code.
@MainActor
func main() async -> ExitCode {
    do throws(UsageError) {
        let arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
        if arguments.flag("--version") {
            Console.out(HelpText.version)
            return .ok
        }
        if arguments.flag("--help") || arguments.command == "help" {
            Console.out(HelpText.text(for: arguments))
            return .ok
        }
        switch arguments.command {
        case "run":
            // People get a supervised app: a plugin that crashes it is turned off and the app comes back.
            if arguments.flag("--supervised") || arguments.flag("--no-supervise") {
                return try await RunCommand.run(arguments)
            }
            try arguments.allow(RunCommand.options)
            return Supervisor.run(Array(CommandLine.arguments.dropFirst()))
        case "routes": return try InspectCommands.routes(arguments)
        case "doctor": return try InspectCommands.doctor(arguments)
        case "probe": return try InspectCommands.probe(arguments)
        case "lock": return try LockCommand.run(arguments)
        case "graph": return try GraphCommand.run(arguments)
        case "solo": return try await SoloCommand.run(arguments)
        case "preview": return try await PreviewCommand.run(arguments)
        case "new": return try NewCommand.run(arguments)
        default:
            throw UsageError(
                "unknown command '\(arguments.command)'", fix: "run `microapp --help` to see the commands")
        }
    } catch {
        Console.err(error.description)
        return .usage
    }
}

exit(Console.exitCode(for: await main()).rawValue)
