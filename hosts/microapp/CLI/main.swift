import DemoServices
import Foundation

/// The composition root: the demo app's name, routes and services, the one place the generic commands learn them.
let demoHost = HostConfiguration(
    name: "Microapps", home: DemoContainer.home, signInFallback: "auth://select",
    services: { use, arguments in
        switch use {
        case .inspection: DemoContainer.inspection()
        case .live:
            try await DemoContainer.open(
                dataDirectory: arguments.value("--data"), charactersURL: arguments.value("--characters-url"))
        }
    })

/// Dispatches the command line to its command and exits with the contract's code.
@MainActor
func main(host: HostConfiguration) async -> ExitCode {
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
                return try await RunCommand.run(arguments, host: host)
            }
            return Supervisor.run(words)
        case "routes": return try await InspectCommands.routes(arguments, host: host)
        case "doctor": return try await InspectCommands.doctor(arguments, host: host)
        case "probe": return try InspectCommands.probe(arguments)
        case "lock": return try LockCommand.run(arguments)
        case "graph": return try await GraphCommand.run(arguments, host: host)
        case "keys": return try await KeysCommand.run(arguments, host: host)
        case "solo": return try await SoloCommand.run(arguments, host: host)
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

exit(Console.exitCode(for: await main(host: demoHost)).rawValue)
