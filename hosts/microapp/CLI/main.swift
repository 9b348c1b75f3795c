import Foundation

/// Dispatches the command line to its command and exits with the contract's code.
@MainActor
func main() async -> ExitCode {
    do throws(UsageError) {
        let words = Array(CommandLine.arguments.dropFirst())
        if words.first == "--version" {
            Console.out(HelpText.version)
            return .ok
        }
        let arguments = try Arguments(words)
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
            return Supervisor.run(words)
        case "routes": return try InspectCommands.routes(arguments)
        case "doctor": return try InspectCommands.doctor(arguments)
        case "probe": return try InspectCommands.probe(arguments)
        case "lock": return try LockCommand.run(arguments)
        case "graph": return try GraphCommand.run(arguments)
        case "keys": return try KeysCommand.run(arguments)
        case "solo": return try await SoloCommand.run(arguments)
        case "preview": return try await PreviewCommand.run(arguments)
        case "new": return try NewCommand.run(arguments)
        case "sdk": return try SDKCommand.run(arguments)
        default:
            // `Arguments` refuses commands that `Commands` does not declare; one declared there lands here.
            throw UsageError(
                "command '\(arguments.command)' is declared but not implemented",
                fix: "add its case to main.swift")
        }
    } catch {
        Console.err(error.description)
        return .usage
    }
}

exit(Console.exitCode(for: await main()).rawValue)
